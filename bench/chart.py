"""SVG bar charts of time ratios (ours / peer) for the benchmark reports, standard library only.

One bar group per case, one bar per series, on a log scale centred on 1.0: a bar grows right
of the 1.0 line when polytensor is slower than the peer, left when it is faster. Used by
bench/gpu_report.py and bench/cpu_compare.sh; from the command line it charts a markdown
table that has a "polytensor ... ms" column and peer "... ms" columns:

    python3 bench/chart.py TABLE.md OUT.svg [TABLE_INDEX]     (e.g. bench/RESULTS.md, 0 or 1)
"""
import math, re, sys
from html import escape

COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"]
LABEL_W, BAR_H, GAP, PLOT_W, PAD = 300, 14, 10, 520, 20


def svg(title: str, series: list, cases: list = None, note: str = "") -> str:
    """series: [(label, {case: ratio})]; cases: the row order (default: first seen)."""
    series = [(label, {c: r for c, r in vals.items() if r and r > 0 and math.isfinite(r)}) for label, vals in series]
    series = [s for s in series if s[1]]
    if cases is None:
        cases = list(dict.fromkeys(c for _, vals in series for c in vals))
    cases = [c for c in cases if any(c in vals for _, vals in series)]
    if not cases:
        return _doc(PLOT_W + LABEL_W + 2 * PAD, 80, [_text(PAD, 30, title, 15, "bold"), _text(PAD, 55, "no ratios to chart")])
    ratios = [r for _, vals in series for r in vals.values()]
    # log10 range with room for the value labels beside the longest bars
    lo, hi = min(math.log10(min(ratios)) - 0.4, -0.5), max(math.log10(max(ratios)) + 0.4, 0.5)
    x0 = PAD + LABEL_W
    xof = lambda r: x0 + (math.log10(r) - lo) / (hi - lo) * PLOT_W
    # a group is as tall as its bars: series without a ratio for the case leave no gap
    present = {c: [i for i, (_, vals) in enumerate(series) if c in vals] for c in cases}
    top = 62 + 18 * math.ceil(len(series) / 3)
    ys, y = {}, top
    for c in cases:
        ys[c], y = y, y + len(present[c]) * BAR_H + GAP
    bottom = y
    height = bottom + 40
    out = [_text(PAD, 24, title, 15, "bold"),
           _text(PAD, 42, note or "ours / peer time, log scale; right of 1.0: polytensor slower, left: faster", 11, fill="#444")]
    for i, (label, _) in enumerate(series):  # legend
        lx, ly = PAD + (i % 3) * 260, 56 + 18 * (i // 3)
        out += [f'<rect x="{lx}" y="{ly}" width="12" height="12" fill="{COLORS[i % len(COLORS)]}"/>', _text(lx + 17, ly + 10, label, 11)]
    for e in range(math.ceil(lo), math.floor(hi) + 1):  # decades
        x = xof(10.0 ** e)
        out += [f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{bottom}" stroke="#ddd"/>',
                _text(x, bottom + 14, f"{10.0 ** e:g}x", 10, anchor="middle", fill="#666")]
    for gi, case in enumerate(cases):
        y, group_h = ys[case], len(present[case]) * BAR_H + GAP
        if gi % 2:
            out.append(f'<rect x="{PAD}" y="{y - GAP / 2:.1f}" width="{LABEL_W + PLOT_W}" height="{group_h}" fill="#f6f6f6"/>')
        out.append(_text(x0 - 8, y + (group_h - GAP) / 2 + 4, case, 11, anchor="end"))
        for k, si in enumerate(present[case]):
            r = series[si][1][case]
            a, b = sorted((xof(1.0), xof(r)))
            by = y + k * BAR_H
            out.append(f'<rect x="{a:.1f}" y="{by + 1}" width="{max(b - a, 1):.1f}" height="{BAR_H - 2}" fill="{COLORS[si % len(COLORS)]}">'
                       f'<title>{escape(case)}: {escape(series[si][0])} {r:.3g}x</title></rect>')
            out.append(_text(b + 3 if r >= 1 else a - 3, by + BAR_H - 3, f"{r:.2f}x", 9, anchor="start" if r >= 1 else "end"))
    x1 = xof(1.0)
    out += [f'<line x1="{x1:.1f}" y1="{top - 8}" x2="{x1:.1f}" y2="{bottom}" stroke="#000" stroke-width="1.5"/>',
            _text(x1, bottom + 28, "1.0 = same time", 10, anchor="middle", weight="bold")]
    return _doc(x0 + PLOT_W + PAD + 40, height, out)


def _text(x, y, s, size=12, weight="normal", anchor="start", fill="#000"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" font-weight="{weight}" text-anchor="{anchor}" '
            f'fill="{fill}">{escape(str(s))}</text>')


def _doc(w, h, body):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" viewBox="0 0 {w:.0f} {h:.0f}" '
            f'font-family="sans-serif">\n<rect width="100%" height="100%" fill="#fff"/>\n' + "\n".join(body) + "\n</svg>\n")


def tables(md: str) -> list:
    """The markdown tables of md as lists of rows (lists of cell strings), header first."""
    found, cur = [], []
    for line in md.splitlines() + [""]:
        if line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur.append(cells)
        elif cur:
            found.append(cur)
            cur = []
    return found


def number(cell: str):
    m = re.match(r"[-+]?\d*\.?\d+(e[-+]?\d+)?", cell.strip())
    return float(m.group(0)) if m else None


def from_table(rows: list) -> list:
    """Series ours/peer from a table's "polytensor ... ms" column and its other "... ms" columns."""
    head = rows[0]
    ms = [i for i, h in enumerate(head) if h.endswith(" ms") or h.endswith(" ns")]
    ours = next((i for i in ms if h_is_ours(head[i])), None)
    if ours is None:
        return []
    series = []
    for i in ms:
        if i == ours or h_is_ours(head[i]):
            continue
        vals = {}
        for r in rows[1:]:
            a, b = number(r[ours]) if ours < len(r) else None, number(r[i]) if i < len(r) else None
            if a and b:
                vals[r[0]] = a / b
        series.append((f"ours / {head[i].rsplit(' ', 1)[0]}", vals))
    return series


def h_is_ours(h: str) -> bool:
    return h.lower().startswith("polytensor")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    candidates = [t for t in tables(open(sys.argv[1]).read()) if from_table(t)]
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    if k >= len(candidates):
        sys.exit(f"{sys.argv[1]}: {len(candidates)} table(s) with a polytensor ms column; no table {k}")
    with open(sys.argv[2], "w") as f:
        f.write(svg(f"polytensor vs peers: {sys.argv[1]} table {k}", from_table(candidates[k]), [r[0] for r in candidates[k][1:]]))
    print(f"wrote {sys.argv[2]} ({len(candidates[k]) - 1} cases)")
