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
        .key.stall { background: var(--orange); opacity: .5; }
        footer { margin-top: 3em; color: var(--faint); font-size: .9em; }
        @media print { body { max-width: none; margin: 0; font-size: 10pt; }
          section.connection { break-inside: avoid-page; }
          a { color: inherit; text-decoration: none; } svg.timeline { max-height: 60vh; } }
        """

    /// Marks that the page's own script ran (`data-script`) and would show any script error in
    /// the page (`#report-error`). `alert` is replaced: a report never calls it, so `data-alert`
    /// would betray code that got into the page.
    static let script = """
        document.documentElement.setAttribute("data-script", "ran");
        window.alert = function () { document.documentElement.setAttribute("data-alert", "called"); };
        window.addEventListener("error", function (e) {
          var p = document.createElement("p"); p.id = "report-error"; p.textContent = "Script error: " + e.message;
          (document.body || document.documentElement).appendChild(p);
        });
        """
}
