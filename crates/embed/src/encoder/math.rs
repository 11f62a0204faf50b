//! The element-wise functions of the encoder, written so the compiler can vectorise them: no
//! branches and no calls into the C maths library in the loops.

/// `e^x` for `x` in about [-87, 88], relative error below 2e-7: `2^n × e^r` with
/// `n = round(x / ln 2)` and a degree-6 Taylor polynomial for `e^r`, `|r| ≤ ln 2 / 2`.
#[inline(always)]
pub fn exp(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // ln 2 in two parts, so `x - n ln 2` loses nothing to rounding.
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Adding then subtracting 1.5 × 2^23 rounds to the nearest integer without a call.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * LOG2_E + ROUND) - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0 / 720.0;
    let p = p * r + 1.0 / 120.0;
    let p = p * r + 1.0 / 24.0;
    let p = p * r + 1.0 / 6.0;
    let p = p * r + 0.5;
    let p = p * r + 1.0;
    let p = p * r + 1.0;
    // 2^n built from bits: `n + 127 + ROUND` holds the biased exponent n + 127 (1…254) in its
    // low mantissa bits, and the shift moves them into the exponent field. No float-to-integer
    // conversion, which the compiler cannot vectorise with Rust's saturating `as`.
    p * f32::from_bits((n + (127.0 + ROUND)).to_bits() << 23)
}

/// The error function, by Abramowitz and Stegun's formula 7.1.26 (absolute error below 1.5e-7).
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A: [f32; 5] = [
        0.254_829_6,
        -0.284_496_74,
        1.421_413_8,
        -1.453_152,
        1.061_405_4,
    ];
    let z = x.abs();
    let t = 1.0 / (1.0 + P * z);
    let poly = ((((A[4] * t + A[3]) * t + A[2]) * t + A[1]) * t + A[0]) * t;
    (1.0 - poly * exp(-z * z)).copysign(x)
}

/// BERT's GELU, `x Φ(x) = x/2 (1 + erf(x/√2))`, in place.
#[inline(always)]
pub fn gelu(values: &mut [f32]) {
    for x in values {
        *x = 0.5 * *x * (1.0 + erf(*x * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Layer normalisation of one row, in place: zero mean, unit variance, then `gain` and `bias`.
#[inline(always)]
pub fn layer_norm(row: &mut [f32], gain: &[f32], bias: &[f32], epsilon: f32) {
    let n = row.len() as f32;
    let mean = sum(row) / n;
    let variance = lanes(
        row,
        0.0,
        |total, x| total + (x - mean) * (x - mean),
        |a, b| a + b,
    ) / n;
    let scale = 1.0 / (variance + epsilon).sqrt();
    for ((x, g), b) in row.iter_mut().zip(gain).zip(bias) {
        *x = (*x - mean) * scale * g + b;
    }
}

/// Softmax of one row, in place.
#[inline(always)]
pub fn softmax(row: &mut [f32]) {
    let max = lanes(
        row,
        f32::NEG_INFINITY,
        |m, x| if x > m { x } else { m },
        f32::max,
    );
    for x in row.iter_mut() {
        *x = exp(*x - max);
    }
    let scale = 1.0 / sum(row);
    for x in row {
        *x *= scale;
    }
}

/// A reduction in eight independent lanes, combined at the end: the compiler may not reorder a
/// float reduction itself, so a plain fold runs one value at a time.
#[inline(always)]
fn lanes(
    values: &[f32],
    start: f32,
    step: impl Fn(f32, f32) -> f32,
    combine: impl Fn(f32, f32) -> f32,
) -> f32 {
    let mut lanes = [start; 8];
    let (whole, rest) = values.split_at(values.len() / 8 * 8);
    for chunk in whole.chunks_exact(8) {
        for i in 0..8 {
            lanes[i] = step(lanes[i], chunk[i]);
        }
    }
    let mut total = rest.iter().fold(start, |t, &x| step(t, x));
    for lane in lanes {
        total = combine(total, lane);
    }
    total
}

/// Sum in eight lanes.
#[inline(always)]
pub fn sum(values: &[f32]) -> f32 {
    lanes(values, 0.0, |t, x| t + x, |a, b| a + b)
}

/// Dot product in eight lanes, which the compiler keeps in vector registers.
#[inline(always)]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let (a8, a_rest) = a.split_at(a.len() / 8 * 8);
    let (b8, b_rest) = b.split_at(a8.len());
    for (x, y) in a8.chunks_exact(8).zip(b8.chunks_exact(8)) {
        for i in 0..8 {
            lanes[i] += x[i] * y[i];
        }
    }
    let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_the_library_over_its_range() {
        for i in -8700..=880 {
            let x = i as f32 / 100.0;
            let (fast, exact) = (exp(x), x.exp());
            assert!(
                ((fast - exact) / exact).abs() < 3e-7,
                "exp({x}) = {fast}, not {exact}"
            );
        }
    }

    #[test]
    fn erf_matches_its_series_within_the_formulas_bound() {
        // erf by its Taylor series, in f64, where it converges well (|x| ≤ 3).
        let series = |x: f64| {
            let (mut term, mut sum, mut n) = (x, x, 0.0);
            while term.abs() > 1e-17 {
                n += 1.0;
                term *= -x * x / n;
                sum += term / (2.0 * n + 1.0);
            }
            sum * 2.0 / std::f64::consts::PI.sqrt()
        };
        for i in -300..=300 {
            let x = i as f64 / 100.0;
            let error = (erf(x as f32) as f64 - series(x)).abs();
            // The formula's 1.5e-7, plus `1 - poly × e^(-z²)` rounded in f32 near 1 (a few
            // units of 1.2e-7).
            assert!(error < 5e-7, "erf({x}) off by {error}");
        }
        assert_eq!(erf(10.0), 1.0);
        assert_eq!(erf(-10.0), -1.0);
    }

    #[test]
    fn softmax_and_layer_norm_do_what_they_say() {
        let mut row = [1.0, 2.0, 3.0, -50.0];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[2] > row[1] && row[1] > row[0] && row[3] < 1e-20);
        let mut row = [1.0, 2.0, 3.0, 4.0];
        layer_norm(&mut row, &[1.0; 4], &[0.5; 4], 1e-12);
        let mean = row.iter().sum::<f32>() / 4.0;
        assert!((mean - 0.5).abs() < 1e-6);
        let variance = row.iter().map(|x| (x - mean).powi(2)).sum::<f32>() / 4.0;
        assert!((variance - 1.0).abs() < 1e-5);
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        assert_eq!(dot(&a, &a), (0..19).map(|i| (i * i) as f32).sum::<f32>());
    }
}
