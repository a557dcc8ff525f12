//! int8 linear layers for batches (indexing), on AVX-512 VNNI: `x · Wᵀ` with the weights quantized
//! once per output row and the activations per input row, multiplied in integers.
//!
//! * **Weights**: row `j` of `W` (`(n, k)`) becomes `q_j = round(W_j / s_j)` with `s_j = max|W_j| / 127`
//!   (symmetric, per output channel), packed for the kernel: panels of 64 output rows, and within a
//!   panel, for each group of 4 inputs, the 64 rows' 4 bytes side by side (one 512-bit load).
//! * **Activations**: row `i` of `x` becomes `a_i = round(x_i / t_i) + 128` as `u8`, `t_i = max|x_i| / 127`
//!   (symmetric, per token, shifted to unsigned for `vpdpbusd`, which multiplies u8 by i8).
//! * **Product**: `vpdpbusd` adds four u8 × i8 products into each int32 lane — 64 multiply-adds per
//!   instruction, four times an f32 FMA's 16. The sum is exact; the shift is taken back with the
//!   weights' row sums: `x_i · W_j ≈ t_i · s_j · (Σ a_i·q_j − 128 · Σ q_j)`.
//!
//! The register tile is 6 rows × 64 outputs (24 accumulators); a task takes a block of rows,
//! quantizes them into a local buffer and runs every panel over them. [`available`] says whether the
//! CPU can (checked at run time; the build targets baseline x86-64), and the caller keeps its f32 path
//! otherwise. The scalar [`QDense::matmul_reference`] computes the same integers; the kernel must
//! match it exactly (unit tests below). Quality against the f32 model is measured in docs/vectors.md.

use rayon::prelude::*;

use crate::simd;

/// Output rows per panel (four 16-lane registers).
const PANEL: usize = 64;
/// Rows of `x` per register tile.
const MR: usize = 6;
/// Rows of `x` per task (a multiple of [`MR`]).
const ROWS_PER_TASK: usize = 48;

/// Whether this CPU runs the int8 kernel (AVX-512 F, BW and VNNI).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Packed int8 weights: made here, or read in place from a saved copy ([`QDense::from_bytes`]).
enum Packed {
    Owned(Vec<i8>),
    Mapped(std::sync::Arc<memmap2::Mmap>, std::ops::Range<usize>),
}

/// A linear layer's weights, quantized and packed for the kernel.
pub(crate) struct QDense {
    n: usize,
    k: usize,
    /// `n / 64` panels of `k / 4` groups of `64 × 4` bytes.
    packed: Packed,
    /// Per output row: its scale `s_j`.
    scale: Vec<f32>,
    /// Per output row: `128 · Σ q_j`.
    shift: Vec<i32>,
}

/// 1.5 · 2²³: adding it to `|v| ≤ 2²²` rounds `v` to an integer (ties to even) held in the low
/// mantissa bits.
const MAGIC: f32 = 12_582_912.0;

/// Round to the nearest integer, ties to even, for `|v| ≤ 2²²` — plain float arithmetic (where
/// `round` would be a libm call per element).
#[inline(always)]
fn round_even(v: f32) -> f32 {
    (v + MAGIC) - MAGIC
}

/// `max |v|` over 16 independent lanes (a one-accumulator fold does not vectorize).
#[inline(always)]
fn abs_max(row: &[f32]) -> f32 {
    let mut acc = [0f32; 16];
    let chunks = row.chunks_exact(16);
    let tail = chunks.remainder().iter().fold(0f32, |m, v| m.max(v.abs()));
    for c in chunks {
        for l in 0..16 {
            acc[l] = acc[l].max(c[l].abs());
        }
    }
    acc.iter().fold(tail, |m, &v| m.max(v))
}

simd::widest!(fn quantize_wide(x: &[f32], k: usize, a: &mut [u8], t: &mut [f32]) => quantize_rows);

/// Quantize `rows` rows of `x` (each `k` long) to shifted u8 (into `a`) with their scales (into `t`).
#[inline(always)]
fn quantize_rows(x: &[f32], k: usize, a: &mut [u8], t: &mut [f32]) {
    for ((row, out), t) in x
        .chunks_exact(k)
        .zip(a.chunks_exact_mut(k))
        .zip(t.iter_mut())
    {
        let amax = abs_max(row);
        // A zero (or non-finite) row quantizes to zeros with scale 0: its products are 0.
        let (inv, scale) = if amax > 0.0 && amax.is_finite() {
            (127.0 / amax, amax / 127.0)
        } else {
            (0.0, 0.0)
        };
        // `round(v·inv) + 128`, ties to even: adding 1.5·2^23 + 128 rounds to an integer and leaves
        // it (1..=255) in the low mantissa bits — vectorized, where a float-to-int `as` is not.
        for (o, v) in out.iter_mut().zip(row) {
            *o = ((v * inv).clamp(-127.0, 127.0) + (MAGIC + 128.0)).to_bits() as u8;
        }
        *t = scale;
    }
}

impl QDense {
    /// Quantize and pack `W` given as row blocks (`(rows, k)` each, together `n` rows). `None` when
    /// the shape does not fit the kernel (`n` a multiple of 64, `k` of 4) or a weight is not finite.
    pub(crate) fn new(parts: &[&[f32]], k: usize) -> Option<QDense> {
        let n: usize = parts.iter().map(|p| p.len() / k.max(1)).sum();
        if k == 0 || n == 0 || !n.is_multiple_of(PANEL) || !k.is_multiple_of(4) {
            return None;
        }
        if parts.iter().any(|p| !p.len().is_multiple_of(k)) {
            return None;
        }
        let rows: Vec<&[f32]> = parts.iter().flat_map(|p| p.chunks_exact(k)).collect();
        if rows.iter().any(|r| r.iter().any(|v| !v.is_finite())) {
            return None;
        }
        let groups = k / 4;
        let mut packed = vec![0i8; n * k];
        let mut scale = vec![0f32; n];
        let mut shift = vec![0i32; n];
        for (j, row) in rows.iter().enumerate() {
            let amax = abs_max(row);
            let (inv, s) = if amax > 0.0 {
                (127.0 / amax, amax / 127.0)
            } else {
                (0.0, 0.0)
            };
            scale[j] = s;
            let (panel, lane) = (j / PANEL, j % PANEL);
            let mut sum = 0i32;
            for (c, v) in row.iter().enumerate() {
                let q = round_even((v * inv).clamp(-127.0, 127.0)) as i32;
                sum += q;
                let (g, b) = (c / 4, c % 4);
                packed[((panel * groups + g) * PANEL + lane) * 4 + b] = q as i8;
            }
            shift[j] = 128 * sum;
        }
        Some(QDense {
            n,
            k,
            packed: Packed::Owned(packed),
            scale,
            shift,
        })
    }

    fn packed(&self) -> &[i8] {
        match &self.packed {
            Packed::Owned(v) => v,
            Packed::Mapped(m, r) => bytemuck::cast_slice(m.get(r.clone()).unwrap_or_default()),
        }
    }

    /// Append this layer to a saved copy: `n`, `k` (u32 LE), the scales (f32 LE), the shifts (i32
    /// LE), the packed bytes.
    pub(crate) fn write_to(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&(self.n as u32).to_le_bytes());
        out.extend_from_slice(&(self.k as u32).to_le_bytes());
        self.scale
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        self.shift
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out.extend_from_slice(bytemuck::cast_slice(self.packed()));
    }

    /// Read a layer written by [`QDense::write_to`] at `*at` of `map`, expecting `n × k`; the packed
    /// bytes stay in the mapping. `None` (and `*at` unspecified) when it does not hold one.
    pub(crate) fn from_bytes(
        map: &std::sync::Arc<memmap2::Mmap>,
        at: &mut usize,
        n: usize,
        k: usize,
    ) -> Option<QDense> {
        let take = |at: &mut usize, len: usize| -> Option<&[u8]> {
            let s = map.get(*at..at.checked_add(len)?)?;
            *at += len;
            Some(s)
        };
        let u32_at = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        if u32_at(take(at, 4)?) != n || u32_at(take(at, 4)?) != k || !n.is_multiple_of(PANEL) {
            return None;
        }
        let scale: Vec<f32> = take(at, 4 * n)?
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let shift: Vec<i32> = take(at, 4 * n)?
            .chunks_exact(4)
            .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let start = *at;
        take(at, n * k)?;
        if scale.iter().any(|s| !s.is_finite()) {
            return None;
        }
        Some(QDense {
            n,
            k,
            packed: Packed::Mapped(std::sync::Arc::clone(map), start..start + n * k),
            scale,
            shift,
        })
    }

    /// Outputs.
    pub(crate) fn out(&self) -> usize {
        self.n
    }

    /// `y = x · Wᵀ` for `x` of `m` rows (`(m, k)` row-major) into `y` (`(m, n)`), on the pool.
    /// Only call when [`available`].
    pub(crate) fn matmul(&self, x: &[f32], y: &mut [f32]) {
        let (n, k) = (self.n, self.k);
        y.par_chunks_mut(ROWS_PER_TASK * n)
            .zip(x.par_chunks(ROWS_PER_TASK * k))
            .for_each_init(
                || (vec![0u8; ROWS_PER_TASK * k], vec![0f32; ROWS_PER_TASK]),
                |(a, t), (y, x)| {
                    let rows = x.len() / k;
                    quantize_wide(x, k, &mut a[..rows * k], &mut t[..rows]);
                    #[cfg(target_arch = "x86_64")]
                    #[allow(unsafe_code)]
                    // SAFETY: the caller checked `available()`; the slices hold `rows` rows of `k`
                    // bytes (a), `rows` scales (t) and `rows × n` outputs (y).
                    unsafe {
                        vnni::block(self, &a[..rows * k], &t[..rows], y)
                    };
                    #[cfg(not(target_arch = "x86_64"))]
                    self.block_reference(&a[..rows * k], &t[..rows], y);
                },
            );
    }

    /// The kernel's arithmetic in scalar Rust: the same quantization, exact integer sums, the same
    /// dequantization. The test oracle of [`QDense::matmul`].
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    pub(crate) fn matmul_reference(&self, x: &[f32], y: &mut [f32]) {
        let (n, k) = (self.n, self.k);
        let rows = x.len() / k;
        let mut a = vec![0u8; rows * k];
        let mut t = vec![0f32; rows];
        quantize_rows(x, k, &mut a, &mut t);
        self.block_reference(&a, &t, &mut y[..rows * n]);
    }

    fn block_reference(&self, a: &[u8], t: &[f32], y: &mut [f32]) {
        let (n, k) = (self.n, self.k);
        let groups = k / 4;
        for (i, (ai, ti)) in a.chunks_exact(k).zip(t).enumerate() {
            for j in 0..n {
                let (panel, lane) = (j / PANEL, j % PANEL);
                let mut acc = 0i32;
                for (c, &av) in ai.iter().enumerate() {
                    let w = self.packed()[((panel * groups + c / 4) * PANEL + lane) * 4 + c % 4];
                    acc += i32::from(av) * i32::from(w);
                }
                y[i * n + j] = (acc - self.shift[j]) as f32 * (ti * self.scale[j]);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod vnni {
    use super::{MR, PANEL, QDense};
    use std::arch::x86_64::*;

    /// Every panel over a block of quantized rows `a` (scales `t`) into `y` (`rows × n`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn block(q: &QDense, a: &[u8], t: &[f32], y: &mut [f32]) {
        let (n, k) = (q.n, q.k);
        let rows = t.len();
        let groups = k / 4;
        let packed = q.packed();
        if packed.len() != n * k {
            return;
        }
        for p in 0..n / PANEL {
            let panel = &packed[p * groups * PANEL * 4..(p + 1) * groups * PANEL * 4];
            let mut r = 0;
            while r + MR <= rows {
                unsafe { tile::<MR>(q, p, panel, &a[r * k..], k, &t[r..], &mut y[r * n..]) };
                r += MR;
            }
            let rest = &mut y[r * n..];
            let (ar, tr) = (&a[r * k..], &t[r..]);
            unsafe {
                match rows - r {
                    1 => tile::<1>(q, p, panel, ar, k, tr, rest),
                    2 => tile::<2>(q, p, panel, ar, k, tr, rest),
                    3 => tile::<3>(q, p, panel, ar, k, tr, rest),
                    4 => tile::<4>(q, p, panel, ar, k, tr, rest),
                    5 => tile::<5>(q, p, panel, ar, k, tr, rest),
                    _ => {}
                }
            }
        }
    }

    /// `R` rows × one 64-output panel: 4R int32 accumulators, then dequantized into `y`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const R: usize>(
        q: &QDense,
        p: usize,
        panel: &[i8],
        a: &[u8],
        k: usize,
        t: &[f32],
        y: &mut [f32],
    ) {
        let n = q.n;
        let groups = k / 4;
        debug_assert!(panel.len() >= groups * PANEL * 4);
        debug_assert!(a.len() >= R * k && t.len() >= R && y.len() >= (R - 1) * n + (p + 1) * PANEL);
        let mut acc = [[_mm512_setzero_si512(); 4]; R];
        let wp = panel.as_ptr();
        let ap = a.as_ptr();
        for g in 0..groups {
            // SAFETY: g < groups, so the panel holds these 256 bytes; each row holds 4 bytes at 4g.
            unsafe {
                let w = wp.add(g * PANEL * 4);
                let w0 = _mm512_loadu_si512(w.cast());
                let w1 = _mm512_loadu_si512(w.add(64).cast());
                let w2 = _mm512_loadu_si512(w.add(128).cast());
                let w3 = _mm512_loadu_si512(w.add(192).cast());
                for (r, acc) in acc.iter_mut().enumerate() {
                    let x = _mm512_set1_epi32(ap.add(r * k + g * 4).cast::<i32>().read_unaligned());
                    acc[0] = _mm512_dpbusd_epi32(acc[0], x, w0);
                    acc[1] = _mm512_dpbusd_epi32(acc[1], x, w1);
                    acc[2] = _mm512_dpbusd_epi32(acc[2], x, w2);
                    acc[3] = _mm512_dpbusd_epi32(acc[3], x, w3);
                }
            }
        }
        let j0 = p * PANEL;
        for (r, acc) in acc.iter().enumerate() {
            let tr = _mm512_set1_ps(t[r]);
            for (c, v) in acc.iter().enumerate() {
                let j = j0 + c * 16;
                // SAFETY: j + 16 ≤ n: the scale, shift and output row hold these 16 lanes.
                unsafe {
                    let shift = _mm512_loadu_si512(q.shift.as_ptr().add(j).cast());
                    let s = _mm512_mul_ps(tr, _mm512_loadu_ps(q.scale.as_ptr().add(j)));
                    let v = _mm512_cvtepi32_ps(_mm512_sub_epi32(*v, shift));
                    _mm512_storeu_ps(y.as_mut_ptr().add(r * n + j), _mm512_mul_ps(v, s));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random f32 in [-1, 1) (xorshift).
    fn rng(seed: &mut u64) -> f32 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }

    fn matrix(len: usize, seed: &mut u64, scale: f32) -> Vec<f32> {
        (0..len).map(|_| rng(seed) * scale).collect()
    }

    #[test]
    fn shapes_that_do_not_fit_are_refused() {
        assert!(QDense::new(&[&[0.5; 63 * 8]], 8).is_none());
        assert!(QDense::new(&[&[0.5; 64 * 6]], 6).is_none());
        assert!(QDense::new(&[&[f32::NAN; 64 * 8]], 8).is_none());
        assert!(QDense::new(&[&[0.5; 64 * 8]], 8).is_some());
    }

    /// The kernel equals the scalar oracle bit for bit, for every remainder of rows, fused parts,
    /// wide inputs, zero and outlier rows; and stays close to the f32 product.
    #[test]
    fn kernel_matches_the_reference_and_the_f32_product() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for (n, k, m) in [(64, 8, 1), (128, 384, 13), (192, 1536, 50), (384, 384, 97)] {
            let w1 = matrix(n / 2 * k, &mut seed, 0.1);
            let w2 = matrix(n / 2 * k, &mut seed, 0.05);
            let q = QDense::new(&[&w1, &w2], k).expect("fits");
            assert_eq!(q.out(), n);
            let mut x = matrix(m * k, &mut seed, 2.0);
            x[..k].fill(0.0); // a zero row
            if m > 2 {
                x[k + 3] = 40.0; // an outlier
            }
            let mut want = vec![0f32; m * n];
            q.matmul_reference(&x, &mut want);
            if available() {
                let mut got = vec![f32::NAN; m * n];
                q.matmul(&x, &mut got);
                assert_eq!(got, want, "n={n} k={k} m={m}");
            }
            // Against f32: relative to the row's scale, the error is small.
            let w: Vec<f32> = w1.iter().chain(&w2).copied().collect();
            for i in 0..m {
                let xi = &x[i * k..(i + 1) * k];
                let norm = xi.iter().map(|v| v * v).sum::<f32>().sqrt();
                for j in 0..n {
                    let exact: f32 = xi
                        .iter()
                        .zip(&w[j * k..(j + 1) * k])
                        .map(|(a, b)| a * b)
                        .sum();
                    let wn = w[j * k..(j + 1) * k]
                        .iter()
                        .map(|v| v * v)
                        .sum::<f32>()
                        .sqrt();
                    let err = (want[i * n + j] - exact).abs();
                    assert!(
                        err <= 0.02 * norm * wn + 1e-6,
                        "n={n} k={k} row {i} out {j}: {} vs {exact}",
                        want[i * n + j]
                    );
                }
            }
        }
    }
}
