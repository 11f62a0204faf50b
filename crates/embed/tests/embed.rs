//! The real all-MiniLM-L6-v2 through cairn's 8-bit encoder: meaning, determinism, normalisation,
//! batching, threads and the 256-token window. (Its agreement with the f32 reference is tested
//! in cairn-bench, which always builds the reference.) Skips visibly without an installed model
//! (see `cairn_embed::testing`).

use cairn_core::embedding::{Embedder, dot};
use cairn_embed::testing::model_for_tests;

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn nearer_in_meaning_is_nearer_in_space() {
    let model = model_for_tests();
    let v = model
        .embed(&[
            "The cat sits on the mat",
            "A kitten rests on a rug",
            "Quarterly revenue grew 5%",
        ])
        .unwrap();
    let similar = dot(&v[0], &v[1]);
    let unrelated = dot(&v[0], &v[2]);
    assert!(
        similar > unrelated + 0.2,
        "cat/kitten {similar:.3} should be well above cat/revenue {unrelated:.3}"
    );
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn embeddings_are_deterministic_normalised_and_independent_of_the_batch() {
    let model = model_for_tests();
    assert_eq!(model.identity().dimensions, 384);
    assert_eq!(model.identity().weights_sha256.len(), 64);
    let text = "Deploys go through the blue-green pipeline";
    let alone = model.embed(&[text]).unwrap().remove(0);
    assert_eq!(alone.len(), 384);
    let norm = dot(&alone, &alone).sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    assert_eq!(alone, model.embed(&[text]).unwrap()[0], "deterministic");
    // In a batch with a longer text the short one is padded; padding must not change it.
    let long = "a much longer sentence about databases, replication lag, failover drills and \
                the on-call rota that pads the batch";
    let batched = model.embed(&[long, text]).unwrap();
    let drift = alone
        .iter()
        .zip(&batched[1])
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(drift < 1e-4, "padding moved the vector by {drift}");
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn texts_are_read_past_the_tokenizers_own_128_token_cut() {
    let model = model_for_tests();
    let filler = "the build log repeats the same routine line again and again ".repeat(16);
    assert!(filler.split_whitespace().count() > 150);
    let a = format!("{filler} finally the kubernetes cluster ran out of memory");
    let b = format!("{filler} finally we baked a banana bread for the team party");
    let v = model.embed(&[&a, &b]).unwrap();
    assert!(
        dot(&v[0], &v[1]) < 0.999,
        "words after token 128 must change the embedding"
    );
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn threads_and_batches_do_not_change_a_vector() {
    let dir = cairn_embed::testing::model_dir_for_tests();
    let load = || cairn_embed::SentenceEmbedder::load(&dir, cairn_embed::DEFAULT_MODEL).unwrap();
    // Enough texts for several batches, so that two threads share them.
    let texts: Vec<String> = (0..60)
        .flat_map(|i| {
            cairn_embed::testing::varied_texts()
                .into_iter()
                .map(move |t| format!("{i}: {t}"))
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let one = load().with_threads(1).embed(&texts).unwrap();
    let two = load().with_threads(2).embed(&texts).unwrap();
    assert_eq!(one, two);
    let alone = load().embed(&[texts[7]]).unwrap();
    assert_eq!(alone[0], one[7]);
}

#[test]
#[ignore = "needs the embedding model (cairn model install)"]
fn a_memorys_sentences_are_pooled_from_the_same_pass_and_each_keeps_its_meaning() {
    let model = model_for_tests();
    let text = cairn_core::embedding::embedding_text(
        None,
        "Notes from the Tuesday sync. The office coffee machine is broken again. The quarterly \
         report is due on Friday. My cat sleeps on the warm router all afternoon.",
    );
    let spans = cairn_core::embedding::sentence_spans(&text);
    assert_eq!(spans.len(), 4);
    let passage = model.embed_passages(&[&text]).unwrap().remove(0);
    // The whole vector is the one `embed` gives: sentences take no second pass and change nothing.
    assert_eq!(passage.vector, model.embed(&[&text]).unwrap()[0]);
    assert_eq!(passage.sentences.len(), spans.len());
    for sentence in &passage.sentences {
        let norm = dot(sentence, sentence).sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    }
    // The sentence that answers is nearer the question than the whole memory is.
    let query = model
        .embed(&["where does the kitten nap"])
        .unwrap()
        .remove(0);
    let whole = dot(&query, &passage.vector);
    let by_sentence: Vec<f32> = passage.sentences.iter().map(|s| dot(&query, s)).collect();
    let best = by_sentence.iter().copied().fold(f32::MIN, f32::max);
    assert_eq!(best, by_sentence[3], "{by_sentence:?}");
    assert!(
        best > whole + 0.05,
        "sentence {best:.3} vs whole {whole:.3}"
    );
    // A one-sentence memory has no sentence vectors; a text cut at 256 tokens keeps those read.
    let single = model
        .embed_passages(&["Deploys\nDeploys go blue-green."])
        .unwrap();
    assert!(single[0].sentences.is_empty());
    let long = format!("Log\nFirst line. {}Last line.", "word ".repeat(400));
    let cut = model.embed_passages(&[&long]).unwrap().remove(0);
    assert_eq!(
        cut.sentences.len(),
        2,
        "the first sentence and the part of the second read"
    );
}
