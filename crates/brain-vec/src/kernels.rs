//! CPU kernels the BERT forward pass spends its non-matmul time in, fused and parallel.
//!
//! candle's element-wise ops run on one thread and call libm per element; on a 2-core box GELU's
//! `erff` and softmax's `expf` alone were 13 % of an embedding run (perf, 2026-11-22). These custom
//! ops do one pass over the data with rayon, in branch-free arithmetic the compiler vectorizes:
//!
//! * [`BiasAdd`] — `x += bias` over the last dimension, in place;
//! * [`BiasGelu`] — `x = gelu(x + bias)`, BERT's exact (erf) GELU, in place;
//! * [`Softmax`] — softmax over the last dimension;
//! * [`AddNorm`] — `LayerNorm(x + bias + residual)`, BERT's add & norm in one pass.
//!
//! [`exp`] is Cephes' `expf` (range reduction by ln 2, a degree-6 polynomial; ~1 ulp), [`erf`] is
//! Abramowitz & Stegun 7.1.26 (absolute error ≤ 1.5e-7 in exact arithmetic, ≤ 6e-7 in f32). Parity of the whole model with a float64
//! reference is tested (cosine ≥ 0.9999, tests/tests/vec.rs; logits within 1e-4, tests/cross.rs).

use candle_core::{CpuStorage, CustomOp1, CustomOp2, InplaceOp2, Layout, Result, Shape, bail};
use rayon::prelude::*;

use crate::simd;

/// Rows per rayon task: enough work per task that scheduling stays negligible.
const ROWS_PER_TASK: usize = 64;

/// Below this many elements a kernel runs on the calling thread: waking the pool costs more than the
/// work (a query of a dozen tokens spent 15 % of its time switching threads).
const PARALLEL_ELEMENTS: usize = 1 << 16;

/// Run `f` over matching row chunks of `out` and `src`, in parallel when the data is large. `f`
/// calls its row kernel through [`simd::widest!`]'s dispatcher, compiled for the widest vector unit
/// the CPU has.
fn chunked(
    out: &mut [f32],
    src: &[f32],
    chunk: usize,
    f: impl Fn(usize, &mut [f32], &[f32]) + Sync + Send,
) {
    if src.len() < PARALLEL_ELEMENTS {
        out.chunks_mut(chunk)
            .zip(src.chunks(chunk))
            .enumerate()
            .for_each(|(i, (o, x))| f(i, o, x));
    } else {
        out.par_chunks_mut(chunk)
            .zip(src.par_chunks(chunk))
            .enumerate()
            .for_each(|(i, (o, x))| f(i, o, x));
    }
}

fn f32s<'a>(s: &'a CpuStorage, l: &Layout, what: &str) -> Result<&'a [f32]> {
    let CpuStorage::F32(v) = s else {
        bail!("{what}: expected f32")
    };
    match l.contiguous_offsets() {
        Some((a, b)) => Ok(&v[a..b]),
        None => bail!("{what}: expected a contiguous tensor"),
    }
}

/// `e^x` in f32 without a libm call (Cephes `expf`): `x = n·ln2 + r`, `e^r` by a polynomial, `2^n`
/// built in the exponent bits. Inputs are clamped to the finite range.
#[inline(always)]
// Cephes' coefficients are kept digit for digit as published; each literal rounds to the same f32.
#[allow(clippy::excessive_precision)]
pub fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Adding and subtracting 1.5·2^23 rounds to the nearest integer in plain float arithmetic.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * LOG2E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4_f32;
    p = p * r + 1.398_199_9e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 5.000_000_1e-1;
    let y = p * r * r + r + 1.0;
    // 2^n from the exponent bits. `n + 127` (1..=254 after the clamp) is an integer, so adding
    // 1.5·2^23 leaves it in the low mantissa bits, and the shift moves it into the exponent field
    // (the high bits shift out) — integer lanes the compiler vectorizes, where `n as i32` (a
    // saturating cast) is scalar code.
    y * f32::from_bits((n + (127.0 + ROUND)).to_bits() << 23)
}

/// `erf(x)`, Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7).
#[inline(always)]
pub fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = ((((1.061_405_4 * t - 1.453_152) * t + 1.421_413_8) * t - 0.284_496_74) * t
        + 0.254_829_6)
        * t;
    (1.0 - poly * exp(-a * a)).copysign(x)
}

/// Exact GELU (BERT's `hidden_act: gelu`): `x/2 · (1 + erf(x/√2))`.
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `x += bias`, bias broadcast over the rows of the last dimension, in place
/// ([`candle_core::Tensor::inplace_op2`]): a matmul's fresh output is not copied into a zeroed one.
pub struct BiasAdd;

/// `x = gelu(x + bias)`, in place: the feed-forward's widest tensor (tokens × 1536 for bge) was a new
/// zeroed buffer per layer, faulted in page by page.
pub struct BiasGelu;

fn bias_map<const GELU: bool>(
    x: &mut CpuStorage,
    lx: &Layout,
    b: &CpuStorage,
    lb: &Layout,
) -> Result<()> {
    let bs = f32s(b, lb, "bias")?;
    let n = bs.len();
    let CpuStorage::F32(v) = x else {
        bail!("bias op input: expected f32")
    };
    let Some((start, end)) = lx.contiguous_offsets() else {
        bail!("bias op input: expected a contiguous tensor")
    };
    let xs = &mut v[start..end];
    if n == 0 || xs.len() % n != 0 || lx.shape().dims().last() != Some(&n) {
        bail!("bias of {n} does not match input {:?}", lx.shape())
    }
    let rows = |o: &mut [f32]| {
        if GELU {
            bias_gelu_rows(o, bs)
        } else {
            bias_add_rows(o, bs)
        }
    };
    if xs.len() < PARALLEL_ELEMENTS {
        xs.chunks_mut(n * ROWS_PER_TASK).for_each(rows);
    } else {
        xs.par_chunks_mut(n * ROWS_PER_TASK).for_each(rows);
    }
    Ok(())
}

simd::widest!(fn bias_add_rows(o: &mut [f32], bs: &[f32]) => bias_rows::<false>);
simd::widest!(fn bias_gelu_rows(o: &mut [f32], bs: &[f32]) => bias_rows::<true>);

/// `o += bias` (or `o = gelu(o + bias)`) row by row.
#[inline(always)]
fn bias_rows<const GELU: bool>(o: &mut [f32], bs: &[f32]) {
    let n = bs.len().max(1);
    for orow in o.chunks_exact_mut(n) {
        for (o, &b) in orow.iter_mut().zip(bs) {
            *o = if GELU { gelu(*o + b) } else { *o + b };
        }
    }
}

impl InplaceOp2 for BiasAdd {
    fn name(&self) -> &'static str {
        "brain-bias-add"
    }
    fn cpu_fwd(&self, x: &mut CpuStorage, lx: &Layout, b: &CpuStorage, lb: &Layout) -> Result<()> {
        bias_map::<false>(x, lx, b, lb)
    }
}

impl InplaceOp2 for BiasGelu {
    fn name(&self) -> &'static str {
        "brain-bias-gelu"
    }
    fn cpu_fwd(&self, x: &mut CpuStorage, lx: &Layout, b: &CpuStorage, lb: &Layout) -> Result<()> {
        bias_map::<true>(x, lx, b, lb)
    }
}

/// Reduce `xs` with `f` over eight independent lanes (a strict left-to-right float reduction does
/// not vectorize; eight lanes do).
#[inline(always)]
fn lanes(xs: &[f32], init: f32, f: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [init; 8];
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder();
    for c in chunks {
        for l in 0..8 {
            acc[l] = f(acc[l], c[l]);
        }
    }
    let mut r = acc.iter().copied().fold(init, &f);
    for &x in tail {
        r = f(r, x);
    }
    r
}

/// Softmax over the last dimension.
pub struct Softmax;

impl CustomOp1 for Softmax {
    fn name(&self) -> &'static str {
        "brain-softmax"
    }
    fn cpu_fwd(&self, s: &CpuStorage, l: &Layout) -> Result<(CpuStorage, Shape)> {
        let xs = f32s(s, l, "softmax input")?;
        let k = l.shape().dims().last().copied().unwrap_or(0);
        if k == 0 {
            return Ok((CpuStorage::F32(xs.to_vec()), l.shape().clone()));
        }
        let mut out = vec![0f32; xs.len()];
        chunked(&mut out, xs, k * ROWS_PER_TASK, |_, o, x| {
            softmax_wide(o, x, k)
        });
        Ok((CpuStorage::F32(out), l.shape().clone()))
    }
}

simd::widest!(fn softmax_wide(o: &mut [f32], x: &[f32], k: usize) => softmax_rows);

/// Softmax of each `k`-long row of `x` into `o`.
#[inline(always)]
fn softmax_rows(o: &mut [f32], x: &[f32], k: usize) {
    for (orow, xrow) in o.chunks_exact_mut(k).zip(x.chunks_exact(k)) {
        let max = lanes(xrow, f32::NEG_INFINITY, f32::max);
        for (o, &x) in orow.iter_mut().zip(xrow) {
            *o = exp(x - max);
        }
        let inv = 1.0 / lanes(orow, 0.0, |a, b| a + b);
        orow.iter_mut().for_each(|o| *o *= inv);
    }
}

/// BERT's "add & norm" after the attention output and after the feed-forward, in one pass per
/// row: `LayerNorm(x + bias + residual)` over the last dimension. Before, the bias, the residual and
/// the norm were three passes and two fresh tensors of the batch's size.
pub struct AddNorm {
    pub bias: Vec<f32>,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
    pub eps: f32,
}

impl CustomOp2 for AddNorm {
    fn name(&self) -> &'static str {
        "brain-add-norm"
    }
    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let x = f32s(s1, l1, "add-norm input")?;
        let r = f32s(s2, l2, "add-norm residual")?;
        let k = self.gamma.len();
        if k == 0
            || l1.shape() != l2.shape()
            || l1.shape().dims().last() != Some(&k)
            || self.bias.len() != k
            || self.beta.len() != k
        {
            bail!(
                "add-norm: input {:?}, residual {:?}, a norm of {k}",
                l1.shape(),
                l2.shape()
            )
        }
        let mut out = vec![0f32; x.len()];
        let rows = |o: &mut [f32], x: &[f32], r: &[f32]| {
            add_norm_wide(o, x, r, &self.bias, &self.gamma, &self.beta, self.eps)
        };
        if x.len() < PARALLEL_ELEMENTS {
            rows(&mut out, x, r);
        } else {
            let chunk = k * ROWS_PER_TASK;
            out.par_chunks_mut(chunk)
                .zip(x.par_chunks(chunk))
                .zip(r.par_chunks(chunk))
                .for_each(|((o, x), r)| rows(o, x, r));
        }
        Ok((CpuStorage::F32(out), l1.shape().clone()))
    }
}

simd::widest!(fn add_norm_wide(o: &mut [f32], x: &[f32], r: &[f32], bias: &[f32], gamma: &[f32], beta: &[f32], eps: f32) => add_norm_rows);

#[inline(always)]
fn add_norm_rows(
    o: &mut [f32],
    x: &[f32],
    r: &[f32],
    bias: &[f32],
    gamma: &[f32],
    beta: &[f32],
    eps: f32,
) {
    let k = gamma.len();
    for ((o, x), r) in o
        .chunks_exact_mut(k)
        .zip(x.chunks_exact(k))
        .zip(r.chunks_exact(k))
    {
        for (((o, &x), &r), &b) in o.iter_mut().zip(x).zip(r).zip(bias) {
            *o = x + b + r;
        }
        let mean = lanes(o, 0.0, |a, b| a + b) / k as f32;
        o.iter_mut().for_each(|v| *v -= mean);
        let mut acc = [0f32; 8];
        let chunks = o.chunks_exact(8);
        let tail = chunks.remainder();
        for c in chunks {
            for l in 0..8 {
                acc[l] += c[l] * c[l];
            }
        }
        let var = (acc.iter().sum::<f32>() + tail.iter().map(|v| v * v).sum::<f32>()) / k as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((o, &g), &b) in o.iter_mut().zip(gamma).zip(beta) {
            *o = *o * inv * g + b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor};

    #[test]
    fn exp_and_erf_are_accurate() {
        let mut x = -80.0f32;
        while x < 80.0 {
            let (got, want) = (exp(x), x.exp());
            assert!(
                ((got - want) / want).abs() < 3e-7,
                "exp({x}) = {got}, want {want}"
            );
            x += 0.037;
        }
        let mut x = -6.0f64;
        while x < 6.0 {
            let got = f64::from(erf(x as f32));
            assert!((got - libm::erf(x)).abs() < 6e-7, "erf({x}) = {got}");
            x += 0.0013;
        }
        // Reference values of x·Φ(x) (float64).
        for (x, want) in [
            (-3.0, -0.004_049_7),
            (-1.0, -0.158_655_3),
            (0.0, 0.0),
            (0.5, 0.345_731_4),
            (2.0, 1.954_499_7),
        ] {
            assert!((gelu(x) - want).abs() < 1e-6, "gelu({x}) = {}", gelu(x));
        }
    }

    #[test]
    fn fused_ops_match_candles_own() -> Result<()> {
        let dev = Device::Cpu;
        let x = Tensor::arange(0f32, 24.0, &dev)?
            .reshape((2, 3, 4))?
            .affine(0.37, -2.0)?;
        let b = Tensor::new(&[0.1f32, -0.2, 0.3, -0.4], &dev)?;
        let want = x.broadcast_add(&b)?;
        let got = x.copy()?;
        got.inplace_op2(&b, &BiasAdd)?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-6);
        let want = want.gelu_erf()?;
        let got = x.copy()?;
        got.inplace_op2(&b, &BiasGelu)?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-5);
        // Long enough for the pool; a view that is not contiguous is refused, not misread.
        let big = Tensor::arange(0f32, (1 << 17) as f32, &dev)?
            .reshape((1 << 15, 4))?
            .affine(1e-4, -3.0)?;
        let got = big.copy()?;
        got.inplace_op2(&b, &BiasGelu)?;
        let want = big.broadcast_add(&b)?.gelu_erf()?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-5);
        assert!(big.t()?.inplace_op2(&b, &BiasAdd).is_err());
        assert!(
            x.copy()?
                .inplace_op2(&b.narrow(0, 0, 3)?, &BiasAdd)
                .is_err()
        );
        // Add & norm against candle-nn's LayerNorm of the sum, rows long enough for the lanes.
        let x = Tensor::arange(0f32, 600.0, &dev)?
            .reshape((30, 20))?
            .affine(0.37, -2.0)?
            .sin()?;
        let r = x.affine(-0.5, 0.25)?.cos()?;
        let bias: Vec<f32> = (0..20).map(|i| i as f32 * 0.01 - 0.1).collect();
        let gamma: Vec<f32> = (0..20).map(|i| 1.0 + i as f32 * 0.02).collect();
        let beta: Vec<f32> = (0..20).map(|i| i as f32 * -0.03).collect();
        let ln = candle_nn::LayerNorm::new(
            Tensor::new(gamma.as_slice(), &dev)?,
            Tensor::new(beta.as_slice(), &dev)?,
            1e-12,
        );
        let want = candle_nn::Module::forward(
            &ln,
            &x.broadcast_add(&Tensor::new(bias.as_slice(), &dev)?)?
                .add(&r)?,
        )?;
        let norm = AddNorm {
            bias,
            gamma,
            beta,
            eps: 1e-12,
        };
        let got = x.apply_op2_no_bwd(&r, &norm)?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-5);
        assert!(x.apply_op2_no_bwd(&x.narrow(0, 0, 3)?, &norm).is_err());
        let s = Tensor::arange(0f32, 36.0, &dev)?
            .reshape((2, 2, 3, 3))?
            .affine(0.7, -9.0)?;
        let want = candle_nn::ops::softmax_last_dim(&s)?;
        let got = s.apply_op1_no_bwd(&Softmax)?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-6);
        Ok(())
    }
}
