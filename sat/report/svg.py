"""Tiny inline-SVG chart helpers: paired horizontal bars and line charts, no external library.

The charts only draw the numbers they are given (already evaluated by the model); every text
is XML-escaped here, so the result can be inserted into an autoescaped template as markup.
Each chart carries its own ``<title>`` tooltips, so a reader can hover any bar or point for
its exact value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape

FONT = "font-family=\"system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif\""


def esc(text: object) -> str:
    """Text escaped for an SVG element body or attribute value."""
    return escape(str(text), quote=True)


def si(value: float, unit: str = "", digits: int = 3) -> str:
    """A number with an SI prefix: ``0.000274`` s -> ``274 µs``; non-finite -> ``n/a``."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if value == 0:
        return f"0 {unit}".strip()
    prefixes = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1, ""), (1e-3, "m"), (1e-6, "µ"),
                (1e-9, "n"), (1e-12, "p"))
    scale, prefix = next(((s, p) for s, p in prefixes if abs(value) >= s * 0.9995),
                         prefixes[-1])
    return f"{value / scale:.{digits}g} {prefix}{unit}".strip()


def number(value: float, digits: int = 4) -> str:
    """Plain number with ``digits`` significant digits, thousands separated when large."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}"
    if 1e-3 <= abs(value) < 1e6:
        return f"{value:.{digits}g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return f"{value:.{digits - 1}e}"


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering ``[low, high]`` (1, 2, 5 times a power of ten apart)."""
    if not (math.isfinite(low) and math.isfinite(high)) or high <= low:
        return [low] if math.isfinite(low) else [0.0]
    raw = (high - low) / max(count, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 12))
    return ticks


@dataclass
class BarRow:
    """One category of a paired bar chart: a label and one value per series."""

    label: str
    values: Sequence[float]
    tooltip: str = ""


def paired_bars(rows: Sequence[BarRow], series: Sequence[tuple[str, str]],
                fmt: Callable[[float], str], *, axis_label: str = "", width: int = 760,
                label_width: int = 190, bar_height: int = 7) -> str:
    """Horizontal bars, one thin bar per series for each row, on one linear axis from zero.

    ``series`` is ``(name, colour)``; values that are not finite are drawn as zero.
    """
    return stacked_bars(rows, [(name, colour, k) for k, (name, colour) in enumerate(series)],
                        fmt, axis_label=axis_label, width=width, label_width=label_width,
                        bar_height=bar_height)


def stacked_bars(rows: Sequence[BarRow], series: Sequence[tuple[str, str, int]],
                 fmt: Callable[[float], str], *, axis_label: str = "", width: int = 760,
                 label_width: int = 190, bar_height: int = 9) -> str:
    """Horizontal bars from zero, one per bar index of ``series`` ``(name, colour, bar)``:
    the series of one bar are stacked end to end, in their order.  Values that are not
    finite count as zero."""
    bars = sorted({bar for _, _, bar in series})
    gap = 6
    row_height = bar_height * len(bars) + gap
    top, bottom = 26, 34
    plot_width = width - label_width - 20
    height = top + row_height * len(rows) + bottom

    def clean(value: float | None) -> float:
        return max(value, 0.0) if value is not None and math.isfinite(value) else 0.0

    totals = [sum(clean(v) for v, (_, _, b) in zip(r.values, series, strict=True) if b == bar)
              for r in rows for bar in bars]
    ticks = nice_ticks(0.0, max(totals + [0.0]) or 1.0, 5)
    scale = plot_width / (ticks[-1] or 1.0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" role="img" {FONT} '
           'font-size="11">']
    legend_x = label_width
    for name, colour, _ in series:
        out.append(f'<rect x="{legend_x}" y="6" width="10" height="10" fill="{colour}"/>'
                   f'<text x="{legend_x + 14}" y="15">{esc(name)}</text>')
        legend_x += 24 + 7 * len(name)
    axis_y = top + row_height * len(rows)
    for tick in ticks:
        tx = label_width + tick * scale
        out.append(f'<line x1="{tx:.1f}" y1="{top - 4}" x2="{tx:.1f}" y2="{axis_y}" '
                   'stroke="#ddd"/>'
                   f'<text x="{tx:.1f}" y="{axis_y + 13}" text-anchor="middle">'
                   f'{esc(fmt(tick))}</text>')
    if axis_label:
        out.append(f'<text x="{label_width + plot_width / 2:.1f}" y="{height - 4}" '
                   f'text-anchor="middle" fill="#444">{esc(axis_label)}</text>')
    for index, row in enumerate(rows):
        y = top + index * row_height
        label = row.label if len(row.label) <= 30 else row.label[:29] + "…"
        out.append(f'<g><title>{esc(row.tooltip or row.label)}</title>'
                   f'<text x="{label_width - 6}" y="{y + row_height / 2 + 1:.1f}" '
                   f'text-anchor="end" dominant-baseline="middle">{esc(label)}</text>')
        ends = dict.fromkeys(bars, float(label_width))
        for (_, colour, bar), value in zip(series, row.values, strict=True):
            length = clean(value) * scale
            start = f"{ends[bar]:.1f}".removesuffix(".0")
            out.append(f'<rect x="{start}" y="{y + bars.index(bar) * bar_height}" '
                       f'width="{length:.1f}" height="{bar_height - 1}" fill="{colour}"/>')
            ends[bar] += length
        out.append("</g>")
    out.append(f'<line x1="{label_width}" y1="{top - 4}" x2="{label_width}" y2="{axis_y}" '
               'stroke="#888"/></svg>')
    return "".join(out)


@dataclass
class Series:
    """One line of a line chart: ``points`` are (x, y) pairs, drawn in the given order."""

    name: str
    colour: str
    points: Sequence[tuple[float, float]]
    step: bool = False  # draw as a step function (value holds until the next x)
    dashed: bool = False


@dataclass
class Marker:
    """A tick on the x axis (a rug mark) with a tooltip, e.g. a working-set size."""

    x: float
    colour: str
    tooltip: str
    row: int = 0  # rug row, so that several kinds of mark do not overlap


@dataclass
class LineChart:
    """A line chart with an optional log2 x axis, rug markers and a vertical 'current' line."""

    series: list[Series]
    x_label: str
    y_label: str
    x_log2: bool = False
    x_fmt: Callable[[float], str] = number
    y_fmt: Callable[[float], str] = number
    markers: list[Marker] = field(default_factory=list)
    marker_rows: list[str] = field(default_factory=list)  # legend text per rug row
    current_x: float | None = None
    current_label: str = ""
    width: int = 760
    height: int = 300
    y_min: float | None = None
    y_max: float | None = None

    def svg(self) -> str:
        """The chart as one ``<svg>`` element."""
        left, right, top = 64, 16, 28
        rug = 10 * max(len(self.marker_rows), 1 if self.markers else 0)
        bottom = 44 + rug
        plot_w = self.width - left - right
        plot_h = self.height - top - bottom
        xs = [p[0] for s in self.series for p in s.points] + [m.x for m in self.markers]
        xs = [v for v in xs if math.isfinite(v) and (v > 0 or not self.x_log2)]
        ys = [p[1] for s in self.series for p in s.points if math.isfinite(p[1])]
        if not xs or not ys:
            return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" height="40" '
                    f'{FONT} font-size="12"><text x="10" y="24">no data</text></svg>')
        if self.x_log2:
            x_low = 2 ** math.floor(math.log2(min(xs)))
            x_high = 2 ** math.ceil(math.log2(max(xs)))
            if x_high <= x_low:
                x_high = x_low * 2
        else:
            x_low, x_high = min(xs), max(xs)
            if x_high <= x_low:
                x_high = x_low + 1
        y_low = self.y_min if self.y_min is not None else min(0.0, min(ys))
        y_high = self.y_max if self.y_max is not None else max(ys)
        y_ticks = nice_ticks(y_low, y_high if y_high > y_low else y_low + 1, 5)
        y_low, y_high = y_ticks[0], y_ticks[-1]

        def px(value: float) -> float:
            if self.x_log2:
                value = max(value, x_low)
                frac = (math.log2(value) - math.log2(x_low)) / (math.log2(x_high)
                                                                 - math.log2(x_low))
            else:
                frac = (value - x_low) / (x_high - x_low)
            return left + plot_w * min(max(frac, 0.0), 1.0)

        def py(value: float) -> float:
            frac = (value - y_low) / (y_high - y_low)
            return top + plot_h * (1 - min(max(frac, 0.0), 1.0))

        out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{self.width}" '
               f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" role="img" '
               f'{FONT} font-size="11">']
        for tick in y_ticks:
            ty = py(tick)
            out.append(f'<line x1="{left}" y1="{ty:.1f}" x2="{left + plot_w}" y2="{ty:.1f}" '
                       f'stroke="#e3e3e3"/><text x="{left - 6}" y="{ty + 4:.1f}" '
                       f'text-anchor="end">{esc(self.y_fmt(tick))}</text>')
        if self.x_log2:
            exponents = range(int(math.log2(x_low)), int(math.log2(x_high)) + 1)
            stride = max(1, math.ceil(len(exponents) / 12))
            x_ticks = [2.0 ** e for e in exponents][::stride]
        else:
            x_ticks = nice_ticks(x_low, x_high, 8)
        axis_y = top + plot_h
        for tick in x_ticks:
            tx = px(tick)
            out.append(f'<line x1="{tx:.1f}" y1="{top}" x2="{tx:.1f}" y2="{axis_y}" '
                       f'stroke="#eee"/><text x="{tx:.1f}" y="{axis_y + 14 + rug}" '
                       f'text-anchor="middle">{esc(self.x_fmt(tick))}</text>')
        out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" '
                   'fill="none" stroke="#888"/>')
        for marker in self.markers:
            if not math.isfinite(marker.x) or (self.x_log2 and marker.x <= 0):
                continue
            mx = px(marker.x)
            my = axis_y + 2 + 10 * marker.row
            out.append(f'<line x1="{mx:.1f}" y1="{my}" x2="{mx:.1f}" y2="{my + 8}" '
                       f'stroke="{marker.colour}" stroke-width="2" stroke-opacity="0.7">'
                       f'<title>{esc(marker.tooltip)}</title></line>')
        if self.current_x is not None and math.isfinite(self.current_x):
            cx = px(self.current_x)
            # Label on the side with room, so that it is never clipped at the right edge.
            right_side = cx < left + plot_w * 0.65
            tx, anchor = (cx + 4, "start") if right_side else (cx - 4, "end")
            out.append(f'<line x1="{cx:.1f}" y1="{top}" x2="{cx:.1f}" y2="{axis_y}" '
                       'stroke="#555" stroke-dasharray="3,3"/>'
                       f'<text x="{tx:.1f}" y="{top + 12}" text-anchor="{anchor}" '
                       f'fill="#333">{esc(self.current_label)}</text>')
        for s in self.series:
            shown = [(a, b) for a, b in s.points if math.isfinite(a) and math.isfinite(b)
                     and (a > 0 or not self.x_log2)]
            points = [(px(a), py(b)) for a, b in shown]
            if not points:
                continue
            path = [f"M{points[0][0]:.1f},{points[0][1]:.1f}"]
            for x1, y1 in points[1:]:
                path.append(f"H{x1:.1f}V{y1:.1f}" if s.step else f"L{x1:.1f},{y1:.1f}")
            dash = ' stroke-dasharray="6,3"' if s.dashed else ""
            out.append(f'<path d="{"".join(path)}" fill="none" stroke="{s.colour}" '
                       f'stroke-width="2"{dash}/>')
            for (a, b), (cx, cy) in zip(shown, points, strict=True):
                out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="2.5" fill="{s.colour}">'
                           f'<title>{esc(s.name)}: {esc(self.x_fmt(a))} → '
                           f'{esc(self.y_fmt(b))}</title></circle>')
        legend_x = left + 4
        for s in self.series:
            out.append(f'<rect x="{legend_x}" y="8" width="12" height="4" fill="{s.colour}"/>'
                       f'<text x="{legend_x + 16}" y="14">{esc(s.name)}</text>')
            legend_x += 28 + 6 * len(s.name)
        for row, text in enumerate(self.marker_rows):
            colour = next((m.colour for m in self.markers if m.row == row), "#888")
            out.append(f'<text x="{left - 6}" y="{axis_y + 10 + 10 * row}" text-anchor="end" '
                       f'font-size="9" fill="{colour}">{esc(text)}</text>')
        out.append(f'<text x="{left + plot_w / 2:.1f}" y="{self.height - 4}" '
                   f'text-anchor="middle" fill="#444">{esc(self.x_label)}</text>'
                   f'<text transform="translate(12,{top + plot_h / 2:.1f}) rotate(-90)" '
                   f'text-anchor="middle" fill="#444">{esc(self.y_label)}</text></svg>')
        return "".join(out)


def heat_map(xs: Sequence[float], ys: Sequence[float], values: dict[tuple[float, float], float],
             fmt: Callable[[float], str], *, x_label: str, y_label: str, value_label: str,
             width: int = 760) -> str:
    """A grid of cells coloured by value (light: small, dark: large); a missing or invalid
    value is grey.  Hover a cell for its numbers."""
    left, top, bottom = 90, 24, 64
    cell_w = max(2.0, (width - left - 20) / max(len(xs), 1))
    cell_h = max(8.0, min(28.0, 360 / max(len(ys), 1)))
    height = int(top + cell_h * len(ys) + bottom)
    finite = [v for v in values.values() if v is not None and math.isfinite(v)]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)

    def colour(value: float | None) -> str:
        if value is None or not math.isfinite(value):
            return "#cccccc"
        share = 0.0 if high == low else (value - low) / (high - low)
        # light yellow (255, 247, 188) to dark red (153, 0, 13)
        r, g, b = (round(a + (z - a) * share) for a, z in ((255, 153), (247, 0), (188, 13)))
        return f"#{r:02x}{g:02x}{b:02x}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" role="img" {FONT} '
           'font-size="11">',
           f'<text x="{left}" y="15">{esc(value_label)}: {esc(fmt(low))} (light) to '
           f'{esc(fmt(high))} (dark); grey: not valid</text>']
    for j, y in enumerate(ys):
        py = top + (len(ys) - 1 - j) * cell_h
        if len(ys) <= 24 or j % max(1, len(ys) // 12) == 0:
            out.append(f'<text x="{left - 6}" y="{py + cell_h / 2 + 4:.1f}" '
                       f'text-anchor="end">{esc(number(y))}</text>')
        for i, x in enumerate(xs):
            value = values.get((x, y))
            shown = fmt(value) if value is not None and math.isfinite(value) else "not valid"
            out.append(f'<rect x="{left + i * cell_w:.1f}" y="{py:.1f}" width="{cell_w:.1f}" '
                       f'height="{cell_h:.1f}" fill="{colour(value)}"><title>'
                       f'{esc(x_label)} {esc(number(x))}, {esc(y_label)} {esc(number(y))}: '
                       f'{esc(shown)}</title></rect>')
    axis_y = top + cell_h * len(ys)
    step = max(1, len(xs) // 10)
    for i in range(0, len(xs), step):
        out.append(f'<text x="{left + (i + 0.5) * cell_w:.1f}" y="{axis_y + 14:.1f}" '
                   f'text-anchor="middle">{esc(number(xs[i]))}</text>')
    out.append(f'<text x="{left + (width - left - 20) / 2:.1f}" y="{height - 26}" '
               f'text-anchor="middle" fill="#444">{esc(x_label)}</text>'
               f'<text x="12" y="{top + cell_h * len(ys) / 2:.1f}" fill="#444" '
               f'transform="rotate(-90 12 {top + cell_h * len(ys) / 2:.1f})" '
               f'text-anchor="middle">{esc(y_label)}</text></svg>')
    return "".join(out)
