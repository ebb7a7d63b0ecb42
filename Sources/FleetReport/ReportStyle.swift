/// The page's inline stylesheet: system fonts only (no web font), readable on screen and on paper.
enum ReportStyle {
    static let css = """
    :root { --ink: #1b1f24; --muted: #5b6470; --line: #d5dae0; --bg: #ffffff; --panel: #f5f7f9;
            --good: #1a7f37; --bad: #b42318; --warn: #8a5a00; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
           color: var(--ink); background: var(--bg); }
    header, main, footer { max-width: 1240px; margin: 0 auto; padding: 0 20px; }
    header { padding-top: 18px; border-bottom: 1px solid var(--line); }
    h1 { font-size: 22px; margin: 0 0 8px; }
    h2 { font-size: 18px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
    h3 { font-size: 14px; margin: 0 0 6px; }
    h4 { font-size: 13px; margin: 0 0 4px; }
    code { font: 12.5px/1.3 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
    dl.meta { display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 0 0 14px; }
    dl.meta div { display: flex; gap: 6px; } dl.meta dt { color: var(--muted); } dl.meta dd { margin: 0; font-weight: 600; }
    .warning { border: 3px solid var(--bad); background: #fff1f0; color: var(--bad); padding: 12px 16px; margin: 16px 0;
               font-size: 15px; }
    .warning strong { font-size: 17px; } .warning ul { margin: 6px 0 0; color: var(--ink); }
    .verdict { margin: 16px 0 8px; font-size: 15px; }
    .badge { display: inline-block; padding: 4px 12px; font-weight: 700; border: 2px solid; border-radius: 4px; }
    .verdict.pass .badge { color: var(--good); } .verdict.fail .badge { color: var(--bad); } .verdict.none .badge { color: var(--muted); }
    ul.notes { color: var(--warn); }
    table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; font-variant-numeric: tabular-nums; }
    th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: right; vertical-align: top; }
    th { background: var(--panel); font-weight: 600; white-space: nowrap; }
    th:first-child, td:first-child, td.name, td.msg, table.thresholds td, table.journeys td:nth-child(2) { text-align: left; }
    table.thresholds th, table.errors th:nth-child(-n+3), table.errors td:nth-child(-n+3), table.errors th:last-child,
    table.history th:nth-child(-n+5), table.history td:nth-child(-n+5), table.journeys th:nth-child(2),
    table.endpoints th:nth-child(9), table.endpoints td:nth-child(9) { text-align: left; }
    td { white-space: nowrap; }
    td.name, td.msg, table.endpoints td:nth-child(9), .funnel td:last-child { white-space: normal; }
    .funnel th:last-child, .funnel td:last-child { text-align: left; }
    td.msg { max-width: 420px; overflow-wrap: anywhere; color: var(--muted); }
    tr.fail td, td.bad, p.bad { color: var(--bad); font-weight: 600; } td.good { color: var(--good); font-weight: 600; }
    tr.pass td:first-child { color: var(--good); }
    tr.current td { background: #fffbe6; }
    .scroll { overflow-x: auto; }
    table.endpoints, table.history, table.errors { font-size: 12.5px; }
    table.endpoints th, table.endpoints td, table.history th, table.history td { padding: 4px 6px; }
    .cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(230px, 1fr)); gap: 12px; }
    .card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px; background: var(--panel); }
    .card .big { font-size: 20px; font-weight: 650; margin: 2px 0; }
    .card .lbl { display: inline-block; min-width: 34px; font-size: 12px; color: var(--muted); font-weight: 600; }
    .card .sub { color: var(--muted); margin: 4px 0 0; font-size: 12.5px; }
    .delta { font-size: 12.5px; font-weight: 600; white-space: nowrap; }
    .delta.worse { color: var(--bad); } .delta.better { color: var(--good); } .delta.same { color: var(--muted); }
    .charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 10px 18px; }
    figure { margin: 0; } figcaption { font-weight: 600; margin: 6px 0 2px; }
    svg.chart { max-width: 100%; height: auto; font-size: 11px; }
    svg.chart .grid { stroke: #e6e9ed; stroke-width: 1; } svg.chart .frame { fill: none; stroke: #9aa3ad; stroke-width: 1; }
    svg.chart .tick { fill: var(--muted); } svg.chart .axis { fill: var(--ink); font-size: 12px; }
    svg.chart .legend text { fill: var(--ink); font-size: 12px; } svg.chart .nodata { fill: var(--muted); font-size: 13px; }
    svg.chart .muted { opacity: 0.55; }
    svg.phases { vertical-align: middle; border: 1px solid var(--line); }
    p.legend .sw { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 12px; vertical-align: -2px; }
    .hint, .empty { color: var(--muted); margin: 4px 0 8px; }
    .funnels { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 12px 18px; }
    .bar { display: inline-block; width: 90px; height: 9px; background: #e9edf1; vertical-align: middle; }
    .bar span { display: block; height: 100%; background: #0072B2; }
    footer { color: var(--muted); border-top: 1px solid var(--line); margin-top: 30px; padding: 12px 20px 30px; }
    @media print {
      body { font-size: 11px; } header, main, footer { max-width: none; padding: 0; }
      section { break-inside: avoid-page; } figure, table, .card { break-inside: avoid; }
      .charts { grid-template-columns: 1fr 1fr; } .scroll { overflow: visible; }
      a { color: inherit; text-decoration: none; }
    }

    """
}
