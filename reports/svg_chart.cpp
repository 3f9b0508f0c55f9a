#include "reports/svg_chart.hpp"

#include <fmt/format.h>

#include "reports/markup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace atomstress::svg {

std::string escape(std::string_view text) { return reports::escape_markup(text); }

namespace {

constexpr double kWidth = 760, kHeight = 400, kLeft = 80, kRight = 220, kTop = 40, kBottom = 60;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;
constexpr const char* kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

// Close enough to count as inside the axis (rounding of 10^n).
bool within(double v, const Axis& a) {
  const double eps = 1e-9 * std::max(std::abs(a.lo), std::abs(a.hi));
  return v >= a.lo - eps && v <= a.hi + eps;
}

double nice_step(double range) {
  const double raw = range / 5;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}

// Widens the axis to round ends: whole decades (log), whole steps (linear).
Axis rounded(Axis a) {
  if (a.log) {
    a.lo = std::pow(10.0, std::floor(std::log10(a.lo)));
    a.hi = std::pow(10.0, std::ceil(std::log10(a.hi)));
    if (a.hi <= a.lo) a.hi = a.lo * 10;
  } else {
    if (a.hi <= a.lo) a.hi = a.lo + 1;
    const double step = nice_step(a.hi - a.lo);
    a.lo = std::floor(a.lo / step) * step;
    a.hi = std::ceil(a.hi / step) * step;
  }
  return a;
}

// Position in [0, 1] along the axis.
double fraction(double v, const Axis& a) {
  if (a.log) return (std::log10(v) - std::log10(a.lo)) / (std::log10(a.hi) - std::log10(a.lo));
  return (v - a.lo) / (a.hi - a.lo);
}

std::string num(double v) { return fmt::format("{:.1f}", v); }

std::string text(double x, double y, const std::string& s, const char* anchor, const std::string& extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra + ">" +
         escape(s) + "</text>\n";
}

std::string open_svg(const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(kHeight) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(kHeight) +
         "\" font-family=\"sans-serif\" font-size=\"12\">\n<title>" + escape(title) + "</title>\n" +
         text(kWidth / 2 - kRight / 2 + kLeft / 2, 20, title, "middle", " font-weight=\"bold\"");
}

}  // namespace

std::vector<double> ticks(const Axis& a) {
  std::vector<double> t;
  if (!(a.hi >= a.lo)) return t;
  if (a.log) {
    if (a.lo <= 0) return t;
    const int d0 = int(std::floor(std::log10(a.lo))), d1 = int(std::ceil(std::log10(a.hi)));
    const bool fine = std::log10(a.hi) - std::log10(a.lo) <= 2;  // under three decades: 2 and 5 too
    for (int d = d0; d <= d1; ++d)
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double v = m * std::pow(10.0, d);
        if (within(v, a)) t.push_back(v);
      }
    return t;
  }
  if (a.hi == a.lo) return {a.lo};
  const double step = nice_step(a.hi - a.lo);
  for (double v = std::ceil(a.lo / step) * step; within(v, a); v += step) t.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

std::string tick_label(double v) {
  const double m = std::abs(v);
  const char* suffix = "";
  double scaled = v;
  if (m >= 1e9) scaled = v / 1e9, suffix = "G";
  else if (m >= 1e6) scaled = v / 1e6, suffix = "M";
  else if (m >= 1e3) scaled = v / 1e3, suffix = "k";
  return fmt::format("{:.3g}{}", scaled, suffix);
}

std::string line_chart(const std::string& title, Axis x, Axis y, const std::vector<Series>& series) {
  // Only what the axes can show; the range from the data when not given.
  std::vector<Series> shown;
  double xlo = std::numeric_limits<double>::max(), xhi = -xlo, ylo = xlo, yhi = -xlo;
  for (const auto& s : series) {
    Series kept{s.name, {}, s.companion_of};
    for (auto [px, py] : s.points) {
      if (!std::isfinite(px) || !std::isfinite(py) || (x.log && px <= 0) || (y.log && py <= 0)) continue;
      kept.points.emplace_back(px, py);
      xlo = std::min(xlo, px), xhi = std::max(xhi, px), ylo = std::min(ylo, py), yhi = std::max(yhi, py);
    }
    std::sort(kept.points.begin(), kept.points.end());
    shown.push_back(std::move(kept));
  }
  const bool any = xlo <= xhi;
  if (x.lo == x.hi) x.lo = any ? xlo : 1, x.hi = any ? xhi : 10;
  if (y.lo == y.hi) y.lo = any ? (y.log ? ylo : std::min(0.0, ylo)) : (y.log ? 1 : 0), y.hi = any ? yhi : 10;
  x = rounded(x);
  y = rounded(y);

  std::string out = open_svg(title);
  out += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kPlotW) + "\" height=\"" +
         num(kPlotH) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (double t : ticks(x)) {
    const double px = kLeft + fraction(t, x) * kPlotW;
    out += "<line x1=\"" + num(px) + "\" y1=\"" + num(kTop) + "\" x2=\"" + num(px) + "\" y2=\"" + num(kTop + kPlotH) +
           "\" stroke=\"#ddd\"/>\n";
    out += text(px, kTop + kPlotH + 16, tick_label(t), "middle");
  }
  for (double t : ticks(y)) {
    const double py = kTop + kPlotH - fraction(t, y) * kPlotH;
    out += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(py) + "\" x2=\"" + num(kLeft + kPlotW) + "\" y2=\"" + num(py) +
           "\" stroke=\"#ddd\"/>\n";
    out += text(kLeft - 6, py + 4, tick_label(t), "end");
  }
  out += text(kLeft + kPlotW / 2, kHeight - 16, x.label + (x.log ? " (log)" : ""), "middle");
  out += text(18, kTop + kPlotH / 2, y.label + (y.log ? " (log)" : ""), "middle",
              " transform=\"rotate(-90 18 " + num(kTop + kPlotH / 2) + ")\"");
  for (size_t i = 0; i < shown.size(); ++i) {
    const auto& s = shown[i];
    // A companion takes its series' colour (`shown` keeps `series`' order).
    const size_t colour_index = s.companion_of >= 0 ? size_t(s.companion_of) : i;
    const std::string colour = kColours[colour_index % std::size(kColours)];
    const std::string dash = s.companion_of >= 0 ? "\" stroke-dasharray=\"6 4" : "";
    std::string pts;
    for (auto [px, py] : s.points) {
      const double cx = kLeft + fraction(px, x) * kPlotW, cy = kTop + kPlotH - fraction(py, y) * kPlotH;
      if (!pts.empty()) pts += ' ';
      pts += num(cx);
      pts += ',';
      pts += num(cy);
      out += "<circle cx=\"" + num(cx) + "\" cy=\"" + num(cy) + "\" r=\"3\" fill=\"" + colour + "\"/>\n";
    }
    if (s.points.size() >= 2)
      out += "<polyline fill=\"none\" stroke=\"" + colour + dash + "\" stroke-width=\"2\" points=\"" + pts + "\"><title>" +
             escape(s.name) + "</title></polyline>\n";
    const double ly = kTop + 10 + 18 * double(i);
    out += "<rect x=\"" + num(kLeft + kPlotW + 12) + "\" y=\"" + num(ly - 8) + "\" width=\"12\" height=\"4\" fill=\"" +
           colour + "\"/>\n";
    out += text(kLeft + kPlotW + 30, ly - 2, s.name, "start", " font-size=\"11\"");
  }
  return out + "</svg>\n";
}

std::string bar_chart(const std::string& title, const std::string& y_label,
                      const std::vector<std::pair<std::string, double>>& bars) {
  double hi = 0;
  for (const auto& b : bars) hi = std::max(hi, b.second);
  Axis y{y_label, false, 0, hi > 0 ? hi : 1};
  y = rounded(y);
  std::string out = open_svg(title);
  out += "<rect x=\"" + num(kLeft) + "\" y=\"" + num(kTop) + "\" width=\"" + num(kPlotW) + "\" height=\"" +
         num(kPlotH) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (double t : ticks(y)) {
    const double py = kTop + kPlotH - fraction(t, y) * kPlotH;
    out += "<line x1=\"" + num(kLeft) + "\" y1=\"" + num(py) + "\" x2=\"" + num(kLeft + kPlotW) + "\" y2=\"" + num(py) +
           "\" stroke=\"#ddd\"/>\n";
    out += text(kLeft - 6, py + 4, tick_label(t), "end");
  }
  out += text(18, kTop + kPlotH / 2, y_label, "middle", " transform=\"rotate(-90 18 " + num(kTop + kPlotH / 2) + ")\"");
  const double slot = bars.empty() ? kPlotW : kPlotW / double(bars.size());
  for (size_t i = 0; i < bars.size(); ++i) {
    const double h = std::max(0.0, fraction(bars[i].second, y)) * kPlotH;
    const double bx = kLeft + slot * double(i) + slot * 0.15;
    out += "<rect x=\"" + num(bx) + "\" y=\"" + num(kTop + kPlotH - h) + "\" width=\"" + num(slot * 0.7) +
           "\" height=\"" + num(h) + "\" fill=\"" + kColours[0] + "\"><title>" + escape(bars[i].first) + ": " +
           escape(tick_label(bars[i].second)) + "</title></rect>\n";
    out += text(bx + slot * 0.35, kTop + kPlotH + 16, bars[i].first, "middle", " font-size=\"10\"");
  }
  return out + "</svg>\n";
}

}  // namespace atomstress::svg
