//! A dense layer `y = x Wᵀ + b` with 8-bit weights and 8-bit activations.
//!
//! Weights are quantised once, symmetrically, per output column: `w ≈ scale_c × q` with `q` in
//! ±63 (see [`kernel`](super::kernel) for why 7 bits). Activations are quantised per row as they
//! arrive, asymmetrically over the row's own range: `x ≈ scale_r × (u − zero_r)` with `u` in
//! 0..=255. The product is then exact integer arithmetic, and
//! `y[r][c] = scale_r × scale_c × (Σ u q − zero_r × Σ_k q[c]) + b[c]`.

use super::kernel;

pub struct QuantizedLinear {
    inputs: usize,
    outputs: usize,
    packed: Vec<i8>,
    scales: Vec<f32>,
    column_sums: Vec<i32>,
    bias: Vec<f32>,
}

/// Reusable buffers for [`QuantizedLinear::forward`].
#[derive(Default)]
pub struct Scratch {
    activations: Vec<u8>,
    row_scales: Vec<f32>,
    zero_points: Vec<i32>,
}

impl QuantizedLinear {
    /// From PyTorch's layout: `weight` is `outputs` rows of `inputs` values.
    pub fn new(weight: &[f32], bias: &[f32], inputs: usize, outputs: usize) -> Self {
        assert_eq!(weight.len(), inputs * outputs);
        assert_eq!(bias.len(), outputs);
        assert!(inputs.is_multiple_of(4) && outputs.is_multiple_of(kernel::PANEL));
        let mut quantised = Vec::with_capacity(weight.len());
        let mut scales = Vec::with_capacity(outputs);
        let mut column_sums = Vec::with_capacity(outputs);
        for row in weight.chunks_exact(inputs) {
            let largest = row.iter().fold(0f32, |m, w| m.max(w.abs()));
            let scale = if largest > 0.0 {
                largest / kernel::WEIGHT_LIMIT
            } else {
                1.0
            };
            let start = quantised.len();
            quantised.extend(row.iter().map(|w| (w / scale).round() as i8));
            column_sums.push(quantised[start..].iter().map(|&q| q as i32).sum());
            scales.push(scale);
        }
        QuantizedLinear {
            inputs,
            outputs,
            packed: kernel::pack(&quantised, outputs, inputs),
            scales,
            column_sums,
            bias: bias.to_vec(),
        }
    }

    /// Several layers that read the same input, as one (their outputs side by side).
    pub fn concat(parts: &[(&[f32], &[f32])], inputs: usize) -> Self {
        let weight: Vec<f32> = parts.iter().flat_map(|(w, _)| w.iter().copied()).collect();
        let bias: Vec<f32> = parts.iter().flat_map(|(_, b)| b.iter().copied()).collect();
        let outputs = bias.len();
        QuantizedLinear::new(&weight, &bias, inputs, outputs)
    }

    /// `output = input Wᵀ + b` for `input.len() / inputs` rows.
    #[inline(always)]
    pub fn forward(&self, input: &[f32], output: &mut Vec<f32>, scratch: &mut Scratch) {
        let rows = input.len() / self.inputs;
        scratch.activations.resize(input.len(), 0);
        scratch.row_scales.clear();
        scratch.zero_points.clear();
        for (row, quantised) in input
            .chunks_exact(self.inputs)
            .zip(scratch.activations.chunks_exact_mut(self.inputs))
        {
            let (scale, zero) = quantise_row(row, quantised);
            scratch.row_scales.push(scale);
            scratch.zero_points.push(zero);
        }
        output.resize(rows * self.outputs, 0.0);
        let dequantise = kernel::Dequantise {
            row_scales: &scratch.row_scales,
            zero_points: &scratch.zero_points,
            column_scales: &self.scales,
            column_sums: &self.column_sums,
            bias: &self.bias,
        };
        kernel::multiply(
            &scratch.activations,
            rows,
            self.inputs,
            &self.packed,
            self.outputs,
            &dequantise,
            output,
        );
    }
}

/// Quantises `row` into `out` over its own range (widened to hold 0); returns its scale and
/// zero point.
#[inline(always)]
fn quantise_row(row: &[f32], out: &mut [u8]) -> (f32, i32) {
    let (mut low, mut high) = ([0f32; 8], [0f32; 8]);
    let (whole, rest) = row.split_at(row.len() / 8 * 8);
    for chunk in whole.chunks_exact(8) {
        for i in 0..8 {
            // Comparisons rather than f32::min, whose NaN rule keeps the loop scalar.
            low[i] = if chunk[i] < low[i] { chunk[i] } else { low[i] };
            high[i] = if chunk[i] > high[i] {
                chunk[i]
            } else {
                high[i]
            };
        }
    }
    let low = rest.iter().chain(&low).fold(0f32, |m, &x| m.min(x));
    let high = rest.iter().chain(&high).fold(0f32, |m, &x| m.max(x));
    let scale = if high > low {
        (high - low) / 255.0
    } else {
        1.0
    };
    let zero = (-low / scale).round().clamp(0.0, 255.0);
    // Adding one half and truncating rounds: every value here is at least -0.5.
    let (inverse, offset) = (1.0 / scale, zero + 0.5);
    for (q, &x) in out.iter_mut().zip(row) {
        let v = x * inverse + offset;
        // Clamped by comparisons, which also turn NaN into 0.
        let v = if v > 0.0 { v } else { 0.0 };
        let v = if v < 255.0 { v } else { 255.0 };
        // SAFETY: `v` is finite and within 0..=255, so the truncation is defined. (Rust's
        // saturating `as` would be the same here, but the compiler cannot vectorise it.)
        *q = unsafe { v.to_int_unchecked::<i32>() } as u8;
    }
    (scale, zero as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_quantises_to_its_rounded_place_in_its_own_range() {
        let mut row: Vec<f32> = (0..203)
            .map(|i| ((i * 7919 % 1009) as f32 - 400.0) / 37.0)
            .collect();
        row[17] = f32::NAN;
        let mut out = vec![0u8; row.len()];
        let (scale, zero) = quantise_row(&row, &mut out);
        for (i, (&x, &q)) in row.iter().zip(&out).enumerate() {
            // The same arithmetic through Rust's saturating conversion (NaN becomes 0).
            let expected = (x * (1.0 / scale) + (zero as f32 + 0.5)).clamp(0.0, 255.0) as u8;
            assert_eq!(q, expected, "value {i} ({x})");
            if !x.is_nan() {
                let back = scale * (q as f32 - zero as f32);
                assert!(
                    (back - x).abs() <= scale * 0.5 + 1e-5,
                    "{x} came back as {back}"
                );
            }
        }
        assert_eq!(out[17], 0, "NaN quantises to 0");
        assert_eq!((out.iter().min(), out.iter().max()), (Some(&0), Some(&255)));
    }

    #[test]
    fn the_quantised_layer_is_close_to_the_exact_product() {
        let (inputs, outputs, rows) = (64, 16, 5);
        let weight: Vec<f32> = (0..inputs * outputs)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 200.0)
            .collect();
        let bias: Vec<f32> = (0..outputs).map(|i| i as f32 / 10.0).collect();
        let input: Vec<f32> = (0..inputs * rows)
            .map(|i| ((i * 53 % 97) as f32 - 30.0) / 20.0)
            .collect();
        let layer = QuantizedLinear::new(&weight, &bias, inputs, outputs);
        let mut output = Vec::new();
        layer.forward(&input, &mut output, &mut Scratch::default());
        for r in 0..rows {
            for c in 0..outputs {
                let exact: f32 = (0..inputs)
                    .map(|k| input[r * inputs + k] * weight[c * inputs + k])
                    .sum::<f32>()
                    + bias[c];
                let got = output[r * outputs + c];
                assert!(
                    (got - exact).abs() < 0.05 * (1.0 + exact.abs()),
                    "row {r} column {c}: {got} vs {exact}"
                );
            }
        }
    }
}
