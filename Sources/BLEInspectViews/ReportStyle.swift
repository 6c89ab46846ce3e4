/// The report's only style and script, inline so that the file stands alone. Colours are the
/// Okabe–Ito palette, which stays distinct under the common colour blindnesses; shapes tell the
/// marks apart too (squares for errors, shaded bands for stalls).
enum ReportStyle {
    static let css = """
        :root { --blue: #0072B2; --orange: #E69F00; --vermillion: #D55E00; --green: #009E73;
          --sky: #56B4E9; --purple: #CC79A7; --ink: #1a1a1a; --faint: #767676; }
        body { font: 15px/1.45 system-ui, sans-serif; color: var(--ink); margin: 1.5em auto; max-width: 1150px; padding: 0 1em; }
        h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
        table { border-collapse: collapse; margin: .8em 0; } caption { text-align: left; font-weight: 600; padding: .3em 0; }
        th, td { border: 1px solid #ccc; padding: .2em .6em; text-align: left; vertical-align: top; }
        dl { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; } dt { font-weight: 600; } dd { margin: 0; }
        a { color: var(--blue); } a:focus-visible { outline: 3px solid var(--orange); outline-offset: 2px; }
        .problems { border-left: 4px solid var(--vermillion); padding: .1em .8em; margin: .8em 0; }
        ul.findings .kind { display: inline-block; min-width: 6.5em; font-weight: 600; }
        li.finding.stall .kind, li.finding.att-error .kind, li.finding.malformed .kind { color: var(--vermillion); }
        figure { margin: 1em 0; } svg.timeline { width: 100%; height: auto; background: #fff; }
        svg text { font: 11px system-ui, sans-serif; fill: var(--ink); }
        svg text.label { text-anchor: end; } svg text.lane { font-weight: 600; } svg text.tick { text-anchor: middle; fill: var(--faint); }
        svg .axis { stroke: var(--ink); } svg .grid { stroke: #e3e3e3; } svg .bound { stroke: var(--ink); stroke-dasharray: 4 3; }
        svg .event { fill: var(--purple); } svg .event.param { fill: var(--blue); } svg .event.mtu { fill: var(--green); }
        svg .event.phy { fill: var(--sky); } svg .event.dle { fill: var(--orange); } svg .event.enc { fill: var(--ink); }
        svg .att { fill: var(--blue); } svg .att-error { fill: var(--vermillion); }
        svg .credits { fill: none; stroke: var(--green); stroke-width: 1.5; }
        svg .stall { fill: var(--orange); fill-opacity: .35; stroke: var(--vermillion); stroke-width: .5; }
        ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3em 1.5em; font-size: .9em; }
        .key { display: inline-block; width: 12px; height: 12px; margin-right: .4em; vertical-align: middle; }
        .key.event { background: var(--blue); } .key.att { background: var(--blue); border-radius: 50%; }
        .key.att-error { background: var(--vermillion); } .key.credits { border-top: 2px solid var(--green); height: 0; }
        .key.stall { background: var(--orange); opacity: .5; } .key.sdu { background: var(--purple); }
        svg .sdu { fill: var(--purple); } svg .sdu.received { fill: var(--sky); }
        ul.gatt-tree { list-style: none; padding-left: 0; font: 13px/1.5 ui-monospace, monospace; }
        ul.gatt-tree ul { list-style: none; padding-left: 1.6em; border-left: 1px solid #ddd; margin: 0; }
        ul.gatt-tree li { white-space: pre-wrap; } li.gatt-service { font-weight: 600; margin-top: .3em; }
        li.gatt-service li { font-weight: normal; } p.note { color: var(--faint); }
        .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
        .lifelines, ol.sequence li.msg, ol.sequence summary { display: grid; grid-template-columns: 8.5em 18em 1fr;
          align-items: center; column-gap: .6em; }
        .lifelines { font-weight: 600; font-size: .9em; } .lifelines span:first-child { text-align: right; }
        ol.sequence { list-style: none; padding: 0; margin: 0 0 1em; font-size: .9em; }
        ol.sequence.members { margin: 0; background: #f6f6f6; }
        ol.sequence li.more { padding-left: 27.7em; color: var(--faint); }
        ol.sequence summary { cursor: pointer; list-style: none; } ol.sequence summary::-webkit-details-marker { display: none; }
        ol.sequence .time { color: var(--faint); font-variant-numeric: tabular-nums; text-align: right; }
        ol.sequence .arrow { position: relative; align-self: stretch; min-height: 1.5em;
          border-left: 2px solid var(--ink); border-right: 2px solid var(--ink); color: var(--blue); }
        ol.sequence .arrow::before { content: ""; position: absolute; top: 50%; left: 4px; right: 4px; border-top: 2px solid currentColor; }
        ol.sequence .arrow::after { content: ""; position: absolute; top: calc(50% - 4px); border: 5px solid transparent; }
        ol.sequence .rightward .arrow::after { right: 0; border-left: 8px solid currentColor; border-right: 0; }
        ol.sequence .leftward .arrow::after { left: 0; border-right: 8px solid currentColor; border-left: 0; }
        ol.sequence .signalling .arrow { color: var(--green); } ol.sequence .smp .arrow { color: var(--vermillion); }
        ol.sequence .control .arrow { color: var(--orange); } ol.sequence .k-frame .arrow { color: var(--sky); }
        ol.sequence li.run > details > summary .arrow::before { border-top: 4px double currentColor; }
        ol.sequence li.run strong { color: var(--ink); }
        ol.sequence summary:focus-visible { outline: 3px solid var(--orange); }
        svg.rssi-chart { width: 100%; height: auto; } svg .rssi { fill: none; stroke: var(--blue); stroke-width: 1.5; }
        svg .rssi-band { fill: var(--sky); fill-opacity: .3; } svg .connect { stroke: var(--vermillion); stroke-dasharray: 4 3; stroke-width: 2; }
        footer { margin-top: 3em; color: var(--faint); font-size: .9em; }
        button.frame { font: inherit; font-variant-numeric: tabular-nums; color: var(--blue); background: none; border: 0;
          padding: 0; text-decoration: underline dotted; cursor: pointer; }
        button.frame:hover { text-decoration-style: solid; } svg a.frame { cursor: pointer; }
        button:focus-visible, svg a.frame:focus-visible, #decode-heading:focus { outline: 3px solid var(--orange); outline-offset: 2px; }
        #decode { position: fixed; right: 1em; bottom: 1em; width: min(760px, calc(100vw - 2em)); max-height: 55vh; z-index: 10;
          display: flex; flex-direction: column; background: #fff; border: 2px solid var(--blue); box-shadow: 0 2px 12px rgba(0,0,0,.25); }
        #decode[hidden] { display: none; }
        .decode-bar { display: flex; justify-content: space-between; align-items: center; padding: .2em .6em; background: #eef5fb; }
        .decode-bar h2 { margin: 0; padding: 0; font-size: 1.05em; border: 0; }
        #decode pre { margin: 0; padding: .5em .8em; overflow: auto; font: 12px/1.35 ui-monospace, monospace; }
        @media print { body { max-width: none; margin: 0; font-size: 10pt; }
          section.connection { break-inside: avoid-page; } #decode { display: none; }
          a, button.frame { color: inherit; text-decoration: none; } svg.timeline { max-height: 60vh; } }
        """

    /// Marks that the page's own script ran (`data-script`) and would show any script error in
    /// the page (`#report-error`). `alert` is replaced: a report never calls it, so `data-alert`
    /// would betray code that got into the page. A click on a frame number (`.frame[data-frame]`)
    /// copies the text of its `<template>` (`ReportDecodes`) into the decode panel with
    /// `textContent`, never as markup; `#frame-N` in the address opens frame N's decode.
    static let script = """
        document.documentElement.setAttribute("data-script", "ran");
        window.alert = function () { document.documentElement.setAttribute("data-alert", "called"); };
        window.addEventListener("error", function (e) {
          var p = document.createElement("p"); p.id = "report-error"; p.textContent = "Script error: " + e.message;
          (document.body || document.documentElement).appendChild(p);
        });
        (function () {
          var opener = null;
          function byId(id) { return document.getElementById(id); }
          function show(n, from) {
            var panel = byId("decode"), text = byId("decode-text"), heading = byId("decode-heading");
            if (!panel || !text || !heading) return;
            var t = byId("decode-" + n);
            heading.textContent = "Frame " + n;
            text.textContent = t ? t.content.textContent
              : "No decode of frame " + n + " is embedded in this report (see Frame decodes).";
            panel.setAttribute("data-frame", n);
            panel.hidden = false;
            opener = from;
            heading.focus();
          }
          function hide() {
            var panel = byId("decode");
            if (!panel || panel.hidden) return;
            panel.hidden = true;
            if (opener && opener.focus) opener.focus();
          }
          document.addEventListener("click", function (e) {
            var t = e.target && e.target.closest ? e.target : null;
            if (!t) return;
            if (t.closest("#decode-close")) { hide(); return; }
            var c = t.closest(".frame[data-frame]");
            if (c) { e.preventDefault(); show(c.getAttribute("data-frame"), c); }
          });
          document.addEventListener("keydown", function (e) { if (e.key === "Escape") hide(); });
          window.addEventListener("DOMContentLoaded", function () {
            var m = /^#frame-([0-9]+)$/.exec(location.hash);
            if (m) show(m[1], null);
          });
        })();
        """
}
