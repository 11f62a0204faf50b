//! The integer matrix product at the heart of the encoder: `u8` activations times `i8` weights,
//! summed in `i32`.
//!
//! Weights are packed once, at load time, in panels of [`PANEL`] output columns: for every group
//! of four inputs, the panel holds 4 bytes per column, column after column (32 bytes per group).
//! That is the shape AVX2's `vpmaddubsw` wants: one broadcast of four activation bytes times one
//! 32-byte load gives, after `vpmaddwd` against ones, eight 4-term dot products at once.
//!
//! `vpmaddubsw` adds two `u8 × i8` products in a saturating `i16`. Weights are quantised to
//! ±[`WEIGHT_LIMIT`] (7 bits) so that `2 × 255 × 63` fits and the sum never saturates; the
//! portable kernel, which sums exactly in `i32`, therefore gives bit-identical results on every
//! machine.

/// Output columns per packed panel.
pub const PANEL: usize = 8;

/// The largest weight magnitude after quantisation (see the module comment).
pub const WEIGHT_LIMIT: f32 = 63.0;

/// How the integer sums become the layer's output, applied as each tile is stored:
/// `out[r][c] = row_scales[r] × column_scales[c] × (sum − zero_points[r] × column_sums[c]) + bias[c]`.
pub struct Dequantise<'a> {
    pub row_scales: &'a [f32],
    pub zero_points: &'a [i32],
    pub column_scales: &'a [f32],
    pub column_sums: &'a [i32],
    pub bias: &'a [f32],
}

impl Dequantise<'_> {
    #[inline(always)]
    fn apply(&self, r: usize, c: usize, sum: i32) -> f32 {
        let exact = sum - self.zero_points[r] * self.column_sums[c];
        self.row_scales[r] * self.column_scales[c] * exact as f32 + self.bias[c]
    }
}

/// `Σ_k a[r][k] × w[c][k]`, dequantised into `out[r][c]`, for `rows` rows of `a` (each `k` bytes,
/// `k` a multiple of 4) and the packed weights of `columns` columns (a multiple of [`PANEL`]).
/// `out` is row-major, `rows × columns`.
pub fn multiply(
    a: &[u8],
    rows: usize,
    k: usize,
    packed: &[i8],
    columns: usize,
    dequantise: &Dequantise<'_>,
    out: &mut [f32],
) {
    assert_eq!(k % 4, 0);
    assert_eq!(columns % PANEL, 0);
    assert_eq!(a.len(), rows * k);
    assert_eq!(packed.len(), columns * k);
    assert_eq!(out.len(), rows * columns);
    assert!(dequantise.row_scales.len() >= rows && dequantise.zero_points.len() >= rows);
    assert!(dequantise.column_scales.len() == columns && dequantise.column_sums.len() == columns);
    assert_eq!(dequantise.bias.len(), columns);
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above); the slices' lengths are as asserted.
        unsafe { avx2::multiply(a, rows, k, packed, columns, dequantise, out) };
        return;
    }
    portable(a, rows, k, packed, columns, dequantise, out);
}

/// Packs `weights` (`columns` rows of `k` quantised values, one row per output column) into
/// panels.
pub fn pack(weights: &[i8], columns: usize, k: usize) -> Vec<i8> {
    let mut packed = Vec::with_capacity(columns * k);
    for panel in 0..columns / PANEL {
        for group in 0..k / 4 {
            for column in panel * PANEL..(panel + 1) * PANEL {
                let row = &weights[column * k..(column + 1) * k];
                packed.extend_from_slice(&row[group * 4..group * 4 + 4]);
            }
        }
    }
    packed
}

/// The same product in plain Rust, for machines without AVX2 and as the reference in tests.
pub fn portable(
    a: &[u8],
    rows: usize,
    k: usize,
    packed: &[i8],
    columns: usize,
    dequantise: &Dequantise<'_>,
    out: &mut [f32],
) {
    for panel in 0..columns / PANEL {
        let weights = &packed[panel * PANEL * k..(panel + 1) * PANEL * k];
        for r in 0..rows {
            let row = &a[r * k..(r + 1) * k];
            let mut sums = [0i32; PANEL];
            for (group, quad) in row.chunks_exact(4).enumerate() {
                let block = &weights[group * 4 * PANEL..(group + 1) * 4 * PANEL];
                for (c, sum) in sums.iter_mut().enumerate() {
                    for t in 0..4 {
                        *sum += quad[t] as i32 * block[c * 4 + t] as i32;
                    }
                }
            }
            for (i, sum) in sums.into_iter().enumerate() {
                let c = panel * PANEL + i;
                out[r * columns + c] = dequantise.apply(r, c, sum);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{Dequantise, PANEL};
    use std::arch::x86_64::*;

    /// Rows computed together: each weight load serves this many rows.
    const ROWS: usize = 4;
    /// Rows per cache block (32 rows of 1536 bytes: 48 KiB).
    const BLOCK_ROWS: usize = 32;

    #[target_feature(enable = "avx2")]
    pub unsafe fn multiply(
        a: &[u8],
        rows: usize,
        k: usize,
        packed: &[i8],
        columns: usize,
        dq: &Dequantise<'_>,
        out: &mut [f32],
    ) {
        let panels = columns / PANEL;
        let operands = Operands {
            a,
            k,
            packed,
            columns,
            dq,
        };
        // Rows in blocks that stay in the core's cache while every panel of weights streams
        // past them.
        for block in (0..rows).step_by(BLOCK_ROWS) {
            let end = rows.min(block + BLOCK_ROWS);
            let mut panel = 0;
            // Two panels (16 columns) at a time, then a last single one.
            while panel < panels {
                let width = if panel + 1 < panels { 2 } else { 1 };
                let mut r = block;
                while r < end {
                    let height = ROWS.min(end - r);
                    // SAFETY: rows r..r+height and panels panel..panel+width are in bounds.
                    unsafe {
                        match (height, width) {
                            (4, 2) => tile::<4, 2>(&operands, r, panel, out),
                            (4, _) => tile::<4, 1>(&operands, r, panel, out),
                            (3, 2) => tile::<3, 2>(&operands, r, panel, out),
                            (3, _) => tile::<3, 1>(&operands, r, panel, out),
                            (2, 2) => tile::<2, 2>(&operands, r, panel, out),
                            (2, _) => tile::<2, 1>(&operands, r, panel, out),
                            (_, 2) => tile::<1, 2>(&operands, r, panel, out),
                            (_, _) => tile::<1, 1>(&operands, r, panel, out),
                        }
                    }
                    r += height;
                }
                panel += width;
            }
        }
    }

    /// What every tile of one product reads.
    #[derive(Clone, Copy)]
    struct Operands<'a> {
        a: &'a [u8],
        k: usize,
        packed: &'a [i8],
        columns: usize,
        dq: &'a Dequantise<'a>,
    }

    /// `H` rows from `row` times `W` panels from `panel`, over all of `k`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn tile<const H: usize, const W: usize>(
        operands: &Operands<'_>,
        row: usize,
        panel: usize,
        out: &mut [f32],
    ) {
        let Operands {
            a,
            k,
            packed,
            columns,
            dq,
        } = *operands;
        // SAFETY: the caller keeps rows row..row+H and panels panel..panel+W in bounds.
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut sums = [[_mm256_setzero_si256(); W]; H];
            let weights = packed.as_ptr().add(panel * PANEL * k);
            let activations = a.as_ptr().add(row * k);
            for group in 0..k / 4 {
                let mut w = [_mm256_setzero_si256(); W];
                for (p, w) in w.iter_mut().enumerate() {
                    *w = _mm256_loadu_si256(
                        weights.add(p * PANEL * k + group * 32) as *const __m256i
                    );
                }
                for (h, sums) in sums.iter_mut().enumerate() {
                    let quad = (activations.add(h * k + group * 4) as *const i32).read_unaligned();
                    let x = _mm256_set1_epi32(quad);
                    for p in 0..W {
                        let pairs = _mm256_maddubs_epi16(x, w[p]);
                        sums[p] = _mm256_add_epi32(sums[p], _mm256_madd_epi16(pairs, ones));
                    }
                }
            }
            for (h, sums) in sums.iter().enumerate() {
                let r = row + h;
                let zero = _mm256_set1_epi32(dq.zero_points[r]);
                let row_scale = _mm256_set1_ps(dq.row_scales[r]);
                for (p, sum) in sums.iter().enumerate() {
                    let c = (panel + p) * PANEL;
                    let column_sums =
                        _mm256_loadu_si256(dq.column_sums.as_ptr().add(c) as *const __m256i);
                    let exact = _mm256_sub_epi32(*sum, _mm256_mullo_epi32(zero, column_sums));
                    let scale =
                        _mm256_mul_ps(row_scale, _mm256_loadu_ps(dq.column_scales.as_ptr().add(c)));
                    let value = _mm256_add_ps(
                        _mm256_mul_ps(scale, _mm256_cvtepi32_ps(exact)),
                        _mm256_loadu_ps(dq.bias.as_ptr().add(c)),
                    );
                    _mm256_storeu_ps(out.as_mut_ptr().add(r * columns + c), value);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_kernel_agrees_with_the_plain_one_exactly() {
        // Every shape the tiling distinguishes: rows 1..9 (whole and partial tiles), an odd
        // number of panels, the extreme values the quantisation allows.
        let mut seed = 7u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for (rows, k, columns) in [
            (1, 4, 8),
            (3, 12, 24),
            (4, 64, 16),
            (9, 384, 40),
            (7, 1536, 8),
        ] {
            let a: Vec<u8> = (0..rows * k).map(|_| next() as u8).collect();
            let w: Vec<i8> = (0..columns * k)
                .map(|i| match i % 5 {
                    0 => WEIGHT_LIMIT as i8,
                    1 => -(WEIGHT_LIMIT as i8),
                    _ => ((next() % 127) as i8) - 63,
                })
                .collect();
            let packed = pack(&w, columns, k);
            // Powers of two keep the dequantisation exact, so both kernels must agree bit for
            // bit with the definition.
            let row_scales: Vec<f32> = (0..rows).map(|r| 0.5f32.powi(r as i32 % 3)).collect();
            let zero_points: Vec<i32> = (0..rows).map(|r| (r as i32 * 37) % 256).collect();
            let column_scales: Vec<f32> =
                (0..columns).map(|c| 2f32.powi(c as i32 % 4 - 6)).collect();
            let column_sums: Vec<i32> = (0..columns)
                .map(|c| w[c * k..(c + 1) * k].iter().map(|&q| q as i32).sum())
                .collect();
            let bias: Vec<f32> = (0..columns).map(|c| c as f32 - 3.0).collect();
            let dq = Dequantise {
                row_scales: &row_scales,
                zero_points: &zero_points,
                column_scales: &column_scales,
                column_sums: &column_sums,
                bias: &bias,
            };
            let mut fast = vec![0.0; rows * columns];
            let mut plain = vec![0.0; rows * columns];
            multiply(&a, rows, k, &packed, columns, &dq, &mut fast);
            portable(&a, rows, k, &packed, columns, &dq, &mut plain);
            assert_eq!(fast, plain, "{rows}×{k}×{columns}");
            for r in 0..rows {
                for c in 0..columns {
                    let sum: i32 = (0..k)
                        .map(|i| a[r * k + i] as i32 * w[c * k + i] as i32)
                        .sum();
                    let exact = (sum - zero_points[r] * column_sums[c]) as f32;
                    let expected = row_scales[r] * column_scales[c] * exact + bias[c];
                    assert_eq!(plain[r * columns + c], expected);
                }
            }
        }
    }
}
