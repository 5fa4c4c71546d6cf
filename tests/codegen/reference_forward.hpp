#pragma once
// A forward pass in double precision, written with the plainest loops and nothing from the
// emitters or kernels: only the plan's shapes and parameter offsets (which the core tests check
// against hand derivations). The gradient tests differentiate it numerically and compare the
// generated code's f32 gradients and losses with it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <staticnet/plan.hpp>

namespace reference {

namespace sn = staticnet;

struct Batch {
  std::vector<double> inputs;        // batch × sample
  std::vector<std::int32_t> labels;  // CrossEntropy
  std::vector<double> targets;       // MSE
};

namespace detail {

inline double activate(sn::LayerKind kind, double x) {
  switch (kind) {
    case sn::LayerKind::ReLU:
      return x > 0 ? x : 0;
    case sn::LayerKind::LeakyReLU:
      return x > 0 ? x : 0.01 * x;
    case sn::LayerKind::Sigmoid:
      return 1 / (1 + std::exp(-x));
    case sn::LayerKind::Tanh:
      return std::tanh(x);
    default:
      return x;
  }
}

// One layer: `x` has the layer's input shape, the result its output shape.
inline std::vector<double> layer(const sn::LayerPlan& l, const std::vector<double>& p,
                                 const std::vector<double>& x) {
  const sn::Shape in = l.input_shape, out = l.output_shape;
  std::vector<double> y(static_cast<std::size_t>(out.elements()), 0.0);
  const sn::LayerDesc& d = l.options;
  switch (l.kind) {
    case sn::LayerKind::Linear: {
      const std::int64_t n_in = in[1], n_out = out[1];
      for (std::int64_t n = 0; n < in[0]; ++n)
        for (std::int64_t o = 0; o < n_out; ++o) {
          double sum = d.bias ? p[static_cast<std::size_t>(l.bias_offset + o)] : 0.0;
          for (std::int64_t i = 0; i < n_in; ++i)
            sum += p[static_cast<std::size_t>(l.weight_offset + o * n_in + i)] *
                   x[static_cast<std::size_t>(n * n_in + i)];
          y[static_cast<std::size_t>(n * n_out + o)] = sum;
        }
      return y;
    }
    case sn::LayerKind::Conv2d: {
      const std::int64_t ci_n = in[1], h = in[2], w = in[3];
      const std::int64_t co_n = out[1], oh_n = out[2], ow_n = out[3];
      for (std::int64_t n = 0; n < in[0]; ++n)
        for (std::int64_t co = 0; co < co_n; ++co)
          for (std::int64_t oh = 0; oh < oh_n; ++oh)
            for (std::int64_t ow = 0; ow < ow_n; ++ow) {
              double sum = d.bias ? p[static_cast<std::size_t>(l.bias_offset + co)] : 0.0;
              for (std::int64_t ci = 0; ci < ci_n; ++ci)
                for (std::int64_t kh = 0; kh < d.kernel_h; ++kh)
                  for (std::int64_t kw = 0; kw < d.kernel_w; ++kw) {
                    const std::int64_t ih = oh * d.stride_h - d.pad_h + kh;
                    const std::int64_t iw = ow * d.stride_w - d.pad_w + kw;
                    if (ih < 0 || ih >= h || iw < 0 || iw >= w)
                      continue;
                    const std::int64_t wi =
                        l.weight_offset + ((co * ci_n + ci) * d.kernel_h + kh) * d.kernel_w + kw;
                    sum += p[static_cast<std::size_t>(wi)] *
                           x[static_cast<std::size_t>(((n * ci_n + ci) * h + ih) * w + iw)];
                  }
              y[static_cast<std::size_t>(((n * co_n + co) * oh_n + oh) * ow_n + ow)] = sum;
            }
      return y;
    }
    case sn::LayerKind::MaxPool2d:
    case sn::LayerKind::AvgPool2d: {
      const bool max = l.kind == sn::LayerKind::MaxPool2d;
      const std::int64_t h = in[2], w = in[3], oh_n = out[2], ow_n = out[3];
      for (std::int64_t plane = 0; plane < in[0] * in[1]; ++plane)
        for (std::int64_t oh = 0; oh < oh_n; ++oh)
          for (std::int64_t ow = 0; ow < ow_n; ++ow) {
            double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
            for (std::int64_t kh = 0; kh < d.kernel_h; ++kh)
              for (std::int64_t kw = 0; kw < d.kernel_w; ++kw) {
                const std::int64_t ih = oh * d.stride_h - d.pad_h + kh;
                const std::int64_t iw = ow * d.stride_w - d.pad_w + kw;
                if (ih < 0 || ih >= h || iw < 0 || iw >= w)
                  continue;  // max: padding is −∞; average: padding adds 0
                const double v = x[static_cast<std::size_t>((plane * h + ih) * w + iw)];
                acc = max ? std::max(acc, v) : acc + v;
              }
            // An average over the window (PyTorch's padding counts as zeros), or with
            // TensorFlow's 'same' over the real elements the window covers.
            std::int64_t real = 0;
            for (std::int64_t kh = 0; kh < d.kernel_h; ++kh)
              for (std::int64_t kw = 0; kw < d.kernel_w; ++kw) {
                const std::int64_t ih = oh * d.stride_h - d.pad_h + kh;
                const std::int64_t iw = ow * d.stride_w - d.pad_w + kw;
                real += ih >= 0 && ih < h && iw >= 0 && iw < w ? 1 : 0;
              }
            const std::int64_t divisor = d.same_padding ? real : d.kernel_h * d.kernel_w;
            y[static_cast<std::size_t>((plane * oh_n + oh) * ow_n + ow)] =
                max ? acc : acc / static_cast<double>(divisor);
          }
      return y;
    }
    case sn::LayerKind::GlobalAvgPool2d: {
      const std::int64_t positions = in[2] * in[3];
      for (std::int64_t plane = 0; plane < in[0] * in[1]; ++plane) {
        double sum = 0;
        for (std::int64_t q = 0; q < positions; ++q)
          sum += x[static_cast<std::size_t>(plane * positions + q)];
        y[static_cast<std::size_t>(plane)] = sum / static_cast<double>(positions);
      }
      return y;
    }
    case sn::LayerKind::Flatten:
      return x;
    default:
      for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = activate(l.kind, x[i]);
      return y;
  }
}

}  // namespace detail

// Each sample's loss: CrossEntropy (log-sum-exp minus the label's logit) or MSE (the mean of the
// sample's squared errors).
template <std::size_t L>
std::vector<double> sample_losses(const sn::Plan<L>& plan, const std::vector<double>& parameters,
                                  const Batch& batch) {
  // Every layer's output, read by id: a residual block's Add reads two.
  std::vector<std::vector<double>> outputs;
  auto tensor = [&](std::int32_t id) -> const std::vector<double>& {
    return id == sn::model_input ? batch.inputs : outputs[static_cast<std::size_t>(id)];
  };
  for (const sn::LayerPlan& l : plan.layers) {
    if (l.kind == sn::LayerKind::Add) {
      std::vector<double> sum = tensor(l.inputs[0]);
      const std::vector<double>& b = tensor(l.inputs[1]);
      for (std::size_t i = 0; i < sum.size(); ++i)
        sum[i] += b[i];
      outputs.push_back(std::move(sum));
    } else {
      outputs.push_back(detail::layer(l, parameters, tensor(l.inputs[0])));
    }
  }
  const std::vector<double>& x = outputs.back();
  const std::int64_t n = plan.output_shape[0];
  const std::int64_t k = plan.output_shape.elements() / n;
  std::vector<double> losses(static_cast<std::size_t>(n));
  for (std::int64_t s = 0; s < n; ++s) {
    const double* z = x.data() + s * k;
    if (plan.setup.loss == sn::LossKind::CrossEntropy) {
      double top = *std::max_element(z, z + k), sum = 0;
      for (std::int64_t c = 0; c < k; ++c)
        sum += std::exp(z[c] - top);
      losses[static_cast<std::size_t>(s)] =
          std::log(sum) + top - z[batch.labels[static_cast<std::size_t>(s)]];
    } else {
      double sum = 0;
      for (std::int64_t e = 0; e < k; ++e) {
        const double diff = z[e] - batch.targets[static_cast<std::size_t>(s * k + e)];
        sum += diff * diff;
      }
      losses[static_cast<std::size_t>(s)] = sum / static_cast<double>(k);
    }
  }
  return losses;
}

template <std::size_t L>
double mean_loss(const sn::Plan<L>& plan, const std::vector<double>& parameters,
                 const Batch& batch) {
  const std::vector<double> losses = sample_losses(plan, parameters, batch);
  double sum = 0;
  for (double l : losses)
    sum += l;
  return sum / static_cast<double>(losses.size());
}

}  // namespace reference
