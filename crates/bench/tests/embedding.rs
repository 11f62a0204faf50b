//! The 8-bit encoder against the f32 reference on candle (cairn-bench builds cairn-embed with
//! its `reference` feature): the same texts, nearly the same vectors. Skips visibly without an
//! installed model (see `cairn_embed::testing`).

use cairn_core::embedding::{Embedder, dot};

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn the_8_bit_encoder_agrees_with_the_f32_reference() {
    let dir = cairn_embed::testing::model_dir_for_tests();
    let model = cairn_embed::SentenceEmbedder::load(&dir, cairn_embed::DEFAULT_MODEL).unwrap();
    let reference = cairn_embed::ReferenceEmbedder::load(&dir, cairn_embed::DEFAULT_MODEL).unwrap();
    let texts = cairn_embed::testing::varied_texts();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let ours = model.embed(&texts).unwrap();
    let exact = reference.embed(&texts).unwrap();
    let cosines: Vec<f32> = ours.iter().zip(&exact).map(|(a, b)| dot(a, b)).collect();
    let mean = cosines.iter().sum::<f32>() / cosines.len() as f32;
    assert!(mean >= 0.995, "mean cosine {mean} over {cosines:?}");
    for (text, cosine) in texts.iter().zip(&cosines) {
        assert!(*cosine >= 0.98, "cosine {cosine} for {text:?}");
    }
}
