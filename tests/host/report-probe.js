// SPDX-License-Identifier: GPL-2.0-or-later
// Appended to a copy of the report page by tests/host/72-report-page.sh:
// measures, as Chromium laid the page out at its window's width, the box of
// every text of every chart (getBoundingClientRect: rotated axis labels as
// drawn) and notes any two that overlap or one that leaves its chart; seed
// 000's table against its plot; whether the page is wider than the window;
// the flame graph's zoom on a click and its reset.
// The findings go into <html data-probe="JSON"> for --dump-dom.
(function () {
	var out = { overlaps: [], outside: [], texts: 0, charts: 0 };
	function box(e) { return e.getBoundingClientRect(); }
	function meet(a, b) {
		return Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
			Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
	}
	document.querySelectorAll("svg.chart").forEach(function (svg) {
		var s = box(svg), name = svg.getAttribute("data-plot");
		var ts = [].filter.call(svg.querySelectorAll("text"), function (t) {
			return t.textContent.trim() !== "";
		});
		var bs = ts.map(box);
		out.charts++;
		out.texts += ts.length;
		for (var i = 0; i < ts.length; i++) {
			if (bs[i].left < s.left - 0.5 || bs[i].right > s.right + 0.5 ||
			    bs[i].top < s.top - 0.5 || bs[i].bottom > s.bottom + 0.5)
				out.outside.push(name + ": " + ts[i].textContent);
			for (var j = i + 1; j < ts.length; j++)
				if (meet(bs[i], bs[j]))
					out.overlaps.push(name + ": '" + ts[i].textContent + "' on '" +
							  ts[j].textContent + "'");
		}
	});
	var pair = document.querySelectorAll(".pair > div");
	if (pair.length !== 2 || meet(box(pair[0]), box(pair[1])))
		out.overlaps.push("seed 000's table and its plot");
	out.beside = pair.length === 2 && box(pair[1]).left >= box(pair[0]).right;
	out.overflow = document.documentElement.scrollWidth > window.innerWidth;
	// the flame graph's own script runs inline: a click on a frame of level 2 hides
	// what is not its subtree or an ancestor, a click on Reset shows all again
	var fs = document.querySelectorAll("svg.flame g.frame"), z = document.querySelector(
		"svg.flame g.frame[data-level='2']");
	function shown() {
		return [].filter.call(fs, function (g) { return g.style.display !== "none"; }).length;
	}
	out.flame = [fs.length, -1, -1];
	if (z) {
		z.dispatchEvent(new MouseEvent("click"));
		out.flame[1] = shown();
		document.querySelector("svg.flame .reset").dispatchEvent(new MouseEvent("click"));
		out.flame[2] = shown();
	}
	out.width = window.innerWidth;
	out.height = document.documentElement.scrollHeight;
	document.documentElement.setAttribute("data-probe", JSON.stringify(out));
})();
