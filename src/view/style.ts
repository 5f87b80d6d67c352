/** The page's stylesheet: light and dark themes from CSS variables (both meet WCAG AA contrast for text). */
export const CSS = `
:root{color-scheme:light;--bg:#ffffff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--panel:#f6f8fa;--accent:#0550ae;
--user:#ddf4ff;--assistant:#ffffff;--system:#fff8c5;--tool:#f6f8fa;--err:#a40e26;--errbg:#ffebe9;--ok:#116329;--okbg:#dafbe1;
--warn:#7d4e00;--warnbg:#fff8c5;--mark:#ffd33d;--add:#dafbe1;--del:#ffebe9;--focus:#0969da;--code:#eff1f3}
[data-theme=dark]{color-scheme:dark;--bg:#0d1117;--fg:#e6edf3;--muted:#9da7b3;--line:#30363d;--panel:#161b22;--accent:#58a6ff;
--user:#0c2d4a;--assistant:#0d1117;--system:#2b2410;--tool:#161b22;--err:#ff9492;--errbg:#3c1618;--ok:#56d364;--okbg:#12261e;
--warn:#e3b341;--warnbg:#2b2410;--mark:#7a5d00;--add:#12261e;--del:#3c1618;--focus:#58a6ff;--code:#1f242c}
*{box-sizing:border-box}
html,body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;z-index:9;background:var(--bg);padding:4px}
header.top{position:sticky;top:0;z-index:5;background:var(--panel);border-bottom:1px solid var(--line);padding:8px 16px;display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}
header.top h1{font-size:17px;margin:0;overflow-wrap:anywhere}
header.top .sub{color:var(--muted);font-size:13px}
.tools{display:flex;gap:8px;align-items:center;margin-left:auto;flex-wrap:wrap}
input,button,select{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:3px 8px}
button{cursor:pointer}button:hover{border-color:var(--accent)}
button[aria-pressed=true],button[aria-selected=true]{background:var(--accent);color:var(--bg);border-color:var(--accent)}
#q{width:16em}#goto{width:6em}.count{color:var(--muted);font-size:13px;min-width:5em}
.layout{display:flex;align-items:flex-start}
main{flex:1;min-width:0;padding:12px 16px;max-width:1100px}
nav.timeline{position:sticky;top:52px;width:270px;flex:none;max-height:calc(100vh - 52px);overflow:auto;border-right:1px solid var(--line);padding:8px}
nav.timeline h2{font-size:14px;margin:4px 0 8px}
nav.timeline ol{list-style:none;margin:0;padding:0}
nav.timeline button{width:100%;text-align:left;margin:2px 0;display:block;font-size:13px}
nav.timeline .node{font-weight:600}nav.timeline time{color:var(--muted);display:block;font-size:12px}
nav.timeline button[aria-current=true] time{color:inherit}
nav.timeline button[aria-current=true]{background:var(--accent);color:var(--bg)}
nav.timeline .chg{display:block;font-size:12px;color:var(--muted);overflow-wrap:anywhere}
nav.timeline button[aria-current=true] .chg{color:inherit}
nav.timeline li.branch{margin:4px 0 4px 4px;padding-left:8px;border-left:2px solid var(--line)}
nav.timeline .fork{display:block;font-size:12px;font-weight:600;color:var(--muted);margin:4px 0 2px}
.badge.src{background:var(--code);color:var(--fg)}.badge.plain{background:var(--code);color:var(--fg)}
section.channel{border:1px solid var(--line);border-radius:8px;padding:4px 12px;margin:0 0 8px}
section.channel.changed{border-color:var(--ok)}
section.channel h3,section.task h3{font-size:14px;margin:4px 0;font-weight:600}
.ver{color:var(--muted);font-size:12px;font-weight:400;overflow-wrap:anywhere}
pre.val{max-height:24em;margin:4px 0}
details.plumbing{margin:12px 0}
table.writes{border-collapse:collapse;width:100%}table.writes td,table.writes th{border-bottom:1px solid var(--line);padding:2px 8px;text-align:left;vertical-align:top}
table.writes td:last-child{width:70%}
[role=tablist]{display:flex;gap:4px;border-bottom:1px solid var(--line);margin:8px 0 12px;flex-wrap:wrap}
[role=tab]{border-radius:6px 6px 0 0;border-bottom:none}
.chunk:nth-child(n+3){content-visibility:auto;contain-intrinsic-size:auto 4000px}
article.msg{border:1px solid var(--line);border-radius:8px;margin:0 0 10px;padding:8px 12px;background:var(--assistant);scroll-margin-top:70px}
article.msg.role-user{background:var(--user)}article.msg.role-system{background:var(--system)}
article.msg.role-toolResult,article.msg.ext{background:var(--tool)}
article.msg.current{outline:2px solid var(--focus)}
article.msg.hit{box-shadow:0 0 0 3px var(--mark)}
article.msg.error,.tool.error{border-color:var(--err)}
article.msg>header{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline;font-size:13px;color:var(--muted)}
article.msg>header .role{font-weight:700;color:var(--fg);text-transform:capitalize}
article.msg>header .idx{font-family:ui-monospace,monospace;color:var(--muted);text-decoration:none}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600}
.badge.err{background:var(--errbg);color:var(--err)}.badge.ok{background:var(--okbg);color:var(--ok)}.badge.warn{background:var(--warnbg);color:var(--warn)}
.body>*{margin:6px 0}
.md p{margin:6px 0}.md pre,pre{background:var(--code);padding:8px;border-radius:6px;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,monospace}
.md code{background:var(--code);padding:0 3px;border-radius:4px;font-size:90%}
.md pre code{background:none;padding:0}
.md img,img.inline{max-width:100%;max-height:480px;border:1px solid var(--line);border-radius:4px}
.md table{border-collapse:collapse}.md td,.md th{border:1px solid var(--line);padding:2px 6px}
.txt p{margin:6px 0;white-space:pre-wrap;overflow-wrap:anywhere}
pre.out{max-height:24em}
details{border:1px solid var(--line);border-radius:6px;padding:4px 8px;background:var(--panel)}
details>summary{cursor:pointer;overflow-wrap:anywhere}
details.think>summary{color:var(--muted);font-style:italic}
details.tool>summary code{font-weight:700}
details.tool .preview{color:var(--muted);font-family:ui-monospace,monospace;font-size:12px}
details h4{margin:8px 0 2px;font-size:13px;color:var(--muted)}
.interrupt{border:2px solid var(--warn);background:var(--warnbg);border-radius:8px;padding:8px 12px;margin:10px 0}
section.panel h2{font-size:16px;margin:14px 0 6px}
ul.todos{list-style:none;padding:0}ul.todos li{padding:3px 0;display:flex;gap:8px;align-items:baseline}
.st-completed{color:var(--ok)}.st-in_progress{color:var(--accent)}.st-cancelled{color:var(--muted);text-decoration:line-through}.st-pending{color:var(--warn)}
.files{display:flex;gap:12px;align-items:flex-start}.files .tree{min-width:220px;max-width:40%}
.files ul{list-style:none;padding-left:14px;margin:2px 0}.files button{border:none;background:none;color:var(--accent);padding:0;text-align:left}
.files pre{flex:1;counter-reset:ln}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px}dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;overflow-wrap:anywhere}
table.usage{border-collapse:collapse;font-variant-numeric:tabular-nums}table.usage td,table.usage th{border:1px solid var(--line);padding:2px 8px;text-align:right}
svg.chart{width:100%;max-width:900px;height:140px;background:var(--panel);border:1px solid var(--line);border-radius:6px}
svg.chart rect.in{fill:var(--accent)}svg.chart rect.out{fill:var(--ok)}svg.chart rect:hover{opacity:.7}
.legend span{margin-right:12px;font-size:13px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
section.changes{border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin:8px 0;background:var(--panel)}
section.changes h2{font-size:15px;margin:4px 0}
ul.changes{padding-left:18px}ul.changes li{margin:4px 0}
.op{font-weight:700;text-transform:uppercase;font-size:11px;letter-spacing:.03em}
ins{background:var(--add);text-decoration:none}del{background:var(--del)}
pre.patch .a{background:var(--add)}pre.patch .d{background:var(--del)}pre.patch span{display:block}
mark{background:var(--mark);color:inherit}
.pager{display:flex;gap:12px;align-items:center;margin:10px 0}
table.threads{border-collapse:collapse;width:100%}table.threads td,table.threads th{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left}
table.threads td.n{text-align:right;font-variant-numeric:tabular-nums}
dialog{background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:8px}
kbd{border:1px solid var(--line);border-radius:4px;padding:0 4px;font-size:12px;background:var(--panel)}
.empty{color:var(--muted);font-style:italic}
`;
