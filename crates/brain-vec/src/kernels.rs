//! CPU kernels the BERT forward pass spends its non-matmul time in, fused and parallel.
//!
//! candle's element-wise ops (bias add, GELU, mask add) run on one thread; on a 2-core box they were
//! a third of an embedding run. These custom ops do one pass over the data with rayon:
//!
//! * [`BiasAdd`] — `x + bias` over the last dimension;
//! * [`BiasGelu`] — `gelu(x + bias)`, exact (erf) GELU as BERT defines it;
//! * [`MaskedSoftmax`] — `softmax(scores + mask)` over the last dimension, the mask an additive
//!   per-key bias (0 for real tokens, a large negative number for padding), shared by every head and
//!   query row of a sequence.

use candle_core::{CpuStorage, CustomOp2, Layout, Result, Shape, bail};
use rayon::prelude::*;

/// Rows per rayon task: enough work per task that scheduling stays negligible.
const ROWS_PER_TASK: usize = 64;

fn f32s<'a>(s: &'a CpuStorage, l: &Layout, what: &str) -> Result<&'a [f32]> {
    let CpuStorage::F32(v) = s else {
        bail!("{what}: expected f32")
    };
    match l.contiguous_offsets() {
        Some((a, b)) => Ok(&v[a..b]),
        None => bail!("{what}: expected a contiguous tensor"),
    }
}

/// `x + bias`, bias broadcast over the rows of the last dimension.
pub struct BiasAdd;

/// `gelu(x + bias)` with the exact GELU, `x/2 · (1 + erf(x/√2))`.
pub struct BiasGelu;

fn bias_map(
    x: &CpuStorage,
    lx: &Layout,
    b: &CpuStorage,
    lb: &Layout,
    f: impl Fn(f32) -> f32 + Sync,
) -> Result<(CpuStorage, Shape)> {
    let xs = f32s(x, lx, "bias op input")?;
    let bs = f32s(b, lb, "bias")?;
    let n = bs.len();
    if n == 0 || xs.len() % n != 0 || lx.shape().dims().last() != Some(&n) {
        bail!("bias of {n} does not match input {:?}", lx.shape())
    }
    let mut out = vec![0f32; xs.len()];
    out.par_chunks_mut(n * ROWS_PER_TASK)
        .zip(xs.par_chunks(n * ROWS_PER_TASK))
        .for_each(|(o, x)| {
            for (orow, xrow) in o.chunks_exact_mut(n).zip(x.chunks_exact(n)) {
                for ((o, &x), &b) in orow.iter_mut().zip(xrow).zip(bs) {
                    *o = f(x + b);
                }
            }
        });
    Ok((CpuStorage::F32(out), lx.shape().clone()))
}

impl CustomOp2 for BiasAdd {
    fn name(&self) -> &'static str {
        "brain-bias-add"
    }
    fn cpu_fwd(
        &self,
        x: &CpuStorage,
        lx: &Layout,
        b: &CpuStorage,
        lb: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        bias_map(x, lx, b, lb, |v| v)
    }
}

impl CustomOp2 for BiasGelu {
    fn name(&self) -> &'static str {
        "brain-bias-gelu"
    }
    fn cpu_fwd(
        &self,
        x: &CpuStorage,
        lx: &Layout,
        b: &CpuStorage,
        lb: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        bias_map(x, lx, b, lb, gelu)
    }
}

/// Exact GELU (BERT's `hidden_act: gelu`).
pub fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + libm::erff(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `softmax(scores + mask)` over the last dimension. `scores` is `(n, heads, q, k)`, `mask` is
/// `(n, k)`.
pub struct MaskedSoftmax;

impl CustomOp2 for MaskedSoftmax {
    fn name(&self) -> &'static str {
        "brain-masked-softmax"
    }
    fn cpu_fwd(
        &self,
        s: &CpuStorage,
        ls: &Layout,
        m: &CpuStorage,
        lm: &Layout,
    ) -> Result<(CpuStorage, Shape)> {
        let scores = f32s(s, ls, "attention scores")?;
        let mask = f32s(m, lm, "attention mask")?;
        let dims = ls.shape().dims();
        let (n, k) = match (dims, lm.shape().dims()) {
            ([n, _, _, k], [mn, mk]) if n == mn && k == mk => (*n, *k),
            _ => bail!("mask {:?} does not fit scores {:?}", lm.shape(), ls.shape()),
        };
        let per_seq = scores.len() / n.max(1);
        let mut out = vec![0f32; scores.len()];
        out.par_chunks_mut(k * ROWS_PER_TASK)
            .zip(scores.par_chunks(k * ROWS_PER_TASK))
            .enumerate()
            .for_each(|(task, (o, x))| {
                let first_row = task * ROWS_PER_TASK;
                for (r, (orow, xrow)) in o.chunks_exact_mut(k).zip(x.chunks_exact(k)).enumerate() {
                    let seq = (first_row + r) * k / per_seq;
                    let bias = &mask[seq * k..(seq + 1) * k];
                    let mut max = f32::NEG_INFINITY;
                    for ((o, &x), &b) in orow.iter_mut().zip(xrow).zip(bias) {
                        *o = x + b;
                        max = max.max(*o);
                    }
                    let mut sum = 0f32;
                    for o in orow.iter_mut() {
                        *o = (*o - max).exp();
                        sum += *o;
                    }
                    let inv = 1.0 / sum;
                    orow.iter_mut().for_each(|o| *o *= inv);
                }
            });
        Ok((CpuStorage::F32(out), ls.shape().clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::{Device, Tensor};

    #[test]
    fn gelu_matches_its_definition() {
        // Reference values of x·Φ(x) (float64).
        for (x, want) in [(-3.0, -0.004_049_7), (-1.0, -0.158_655_3), (0.0, 0.0), (0.5, 0.345_731_4), (2.0, 1.954_499_7)] {
            assert!((gelu(x) - want).abs() < 1e-6, "gelu({x}) = {}", gelu(x));
        }
    }

    #[test]
    fn fused_ops_match_the_unfused_ones() -> Result<()> {
        let dev = Device::Cpu;
        let x = Tensor::arange(0f32, 24.0, &dev)?.reshape((2, 3, 4))?.affine(0.37, -2.0)?;
        let b = Tensor::new(&[0.1f32, -0.2, 0.3, -0.4], &dev)?;
        let want = x.broadcast_add(&b)?;
        let got = x.apply_op2_no_bwd(&b, &BiasAdd)?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-6);
        let want = want.gelu_erf()?;
        let got = x.apply_op2_no_bwd(&b, &BiasGelu)?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-5);

        // 2 sequences, 2 heads, 3 queries, 3 keys; the second sequence's last key is padding.
        let s = Tensor::arange(0f32, 36.0, &dev)?.reshape((2, 2, 3, 3))?.affine(0.1, -1.0)?;
        let m = Tensor::new(&[[0f32, 0.0, 0.0], [0.0, 0.0, -1e9]], &dev)?;
        let want = candle_nn::ops::softmax_last_dim(
            &s.broadcast_add(&m.unsqueeze(1)?.unsqueeze(1)?)?,
        )?;
        let got = s.apply_op2_no_bwd(&m, &MaskedSoftmax)?;
        assert!(want.sub(&got)?.abs()?.max_all()?.to_scalar::<f32>()? < 1e-6);
        let padded: Vec<f32> = got.get(1)?.flatten_all()?.to_vec1()?;
        assert!(padded.iter().skip(2).step_by(3).all(|p| *p < 1e-6), "{padded:?}");
        Ok(())
    }
}
