// ggp view: the match list, a match stepper, the live page and the study page.
// Documents come from the viewer's JSON (matches/viewer.py); nothing is fetched
// from anywhere else.
"use strict";

const main = document.getElementById("main");
let events = null;          // the EventSource of the live page or the study page
let player = null;          // the stepper's play timer
let keys = null;            // the stepper's keyboard handler

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (v !== null && v !== undefined && v !== false) node.setAttribute(k, v);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function getJSON(url) {
  let response;
  try {
    response = await fetch(url, {cache: "no-store"});
  } catch (err) {
    return {problem: "the viewer does not answer (was it stopped?)"};
  }
  try {
    return await response.json();
  } catch (err) {
    return {problem: `the viewer answered ${response.status} without a document`};
  }
}

function problem(text) {
  return el("p", {class: "problem", role: "alert"}, text);
}

function show(...nodes) {
  main.replaceChildren(...nodes.flat().filter(n => n !== null && n !== undefined));
}

function stopLive() {
  if (events) { events.close(); events = null; }
  if (player) { clearInterval(player); player = null; }
  if (keys) { document.removeEventListener("keydown", keys); keys = null; }
}

function when(ms) {
  return ms ? new Date(ms).toLocaleString() : "";
}

function goalsText(goals, roles) {
  return roles.filter(r => r in goals).map(r => `${r} ${goals[r]}`).join(", ");
}

// --- the list of matches ----------------------------------------------------------

function showNav(data) {      // the live and study links, when the viewer has them
  document.getElementById("nav-live").hidden = !data.live;
  document.getElementById("nav-study").hidden = !data.study;
}

async function showList() {
  const data = await getJSON("/api/matches");
  if (data.problem) return show(problem(data.problem));
  showNav(data);
  const matches = data.matches;
  const games = [...new Set(matches.map(m => m.game))].sort();
  const search = el("input", {id: "search", type: "search", placeholder: "search game, player, role",
                              "aria-label": "search"});
  const game = el("select", {id: "game-filter", "aria-label": "game"},
                  el("option", {value: ""}, "every game"),
                  games.map(g => el("option", {value: g}, g)));
  const faulty = el("input", {id: "faults-only", type: "checkbox"});
  const body = el("tbody");
  const count = el("span", {id: "count", class: "quiet"});
  const filter = () => {
    const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of body.children) {
      const m = row.match;
      const text = row.textContent.toLowerCase();
      const visible = words.every(w => text.includes(w)) && (!game.value || m.game === game.value)
        && (!faulty.checked || m.faults > 0 || m.problem);
      row.hidden = !visible;
      shown += visible;
    }
    count.textContent = `${shown} of ${matches.length} matches`;
  };
  for (const m of matches) {
    let row;
    if (m.problem) {
      row = el("tr", {class: "match damaged", "data-id": m.id},
               el("td", {}, m.game), el("td", {colspan: 5}, problem(m.problem)));
    } else {
      const players = m.roles.filter(r => m.players[r] != null).map(r => `${r}: ${m.players[r]}`).join(", ");
      row = el("tr", {class: "match", "data-id": m.id, tabindex: 0},
               el("td", {}, el("a", {href: `#/match/${encodeURIComponent(m.id)}`}, m.game)),
               el("td", {}, players),
               el("td", {class: "goals"}, goalsText(m.goals, m.roles) || (m.completed ? "" : "unfinished")),
               el("td", {class: "num"}, m.steps),
               el("td", {class: "num" + (m.faults ? " faulty" : "")}, m.faults),
               el("td", {}, when(m.start), m.study ? el("span", {class: "tag"}, m.study) : null));
      row.addEventListener("click", ev => {
        if (ev.target.tagName !== "A") location.hash = `#/match/${encodeURIComponent(m.id)}`;
      });
    }
    row.match = m;
    body.append(row);
  }
  for (const input of [search, game, faulty]) input.addEventListener("input", filter);
  show(el("h1", {}, "Matches"),
       el("div", {class: "filters"}, search, game, el("label", {}, faulty, " with faults"), count),
       matches.length ? el("table", {id: "list"},
         el("thead", {}, el("tr", {}, ["game", "players", "goals", "steps", "faults", "date"]
                                        .map(h => el("th", {}, h)))), body)
         : el("p", {class: "quiet"}, "No matches yet: play one with ggp match."));
  filter();
}

// --- one match, step by step --------------------------------------------------------

function boardTable(board, changed) {
  // Pieces with a glyph (matches/board.py: piece_glyphs) are drawn as it, their
  // symbol kept in the title; the cells the last move changed are marked "changed".
  const glyphs = board.glyphs || {}, colors = board.colors || {};
  const moved = new Set((changed || []).map(([c, r]) => `${c}\u0000${r}`));
  return el("table", {id: "board", class: "board"},
    el("tbody", {},
      board.rows.map((r, i) => el("tr", {},
        el("th", {}, r),
        board.cells[i].map((sym, j) => {
          const c = board.columns[j], glyph = glyphs[sym];
          const kind = sym === "" ? "off" : sym === "." ? "empty" : "piece";
          return el("td", {
            class: kind + (glyph ? " glyph" : "") + (moved.has(`${c}\u0000${r}`) ? " changed" : ""),
            "data-col": c, "data-row": r, "data-piece": kind === "piece" ? sym : null,
            title: glyph ? sym : null, style: glyph && colors[sym] ? `color: ${colors[sym]}` : null},
            glyph || (sym === "." ? "" : sym));
        }))),
      el("tr", {}, el("th", {}), board.columns.map(c => el("th", {}, c)))));
}

function factsList(facts) {   // one fact a line
  return el("ul", {id: "facts", class: "facts"}, facts.map(f => el("li", {}, f)));
}

function moveList(doc, roles, k, go) {
  // One row per step: its number and each role's move; the current one marked.
  const row = (n, cells) => el("tr", {class: "ply" + (n === k ? " current" : ""), "data-ply": n,
                                     "aria-current": n === k ? "step" : null,
                                     onclick: () => go(n)},
                               el("td", {class: "num"}, n), cells);
  return el("div", {id: "movelist-box", class: "movelist"},
    el("table", {id: "movelist"},
      el("thead", {}, el("tr", {}, el("th", {}, "step"), roles.map(r => el("th", {}, r)))),
      el("tbody", {},
        row(0, el("td", {colspan: roles.length, class: "quiet"}, "start")),
        doc.steps.slice(1).map((s, i) => row(i + 1, roles.map(r => el("td", {
            "data-role": r,
            class: (s.moves && s.moves[r] === "noop" ? "quiet" : "") + (s.errors[r] ? " faulty" : "")},
          s.moves ? s.moves[r] : "", s.errors[r] ? ` ${s.errors[r]}` : null)))))));
}

function faultList(faults) {
  return el("ul", {id: "faults", class: "faults"},
    faults.map(f => el("li", {class: "fault"},
      `${f.role}: ${f.code} at ${f.phase === "play" ? "step " + f.step : f.phase.toUpperCase()}`
      + (f.reason ? ` (${f.reason})` : ""))));
}

class Stepper {
  // link: the match's route (#/match/ID), to which the page's address adds ?ply=K
  constructor(doc, {follow = false, ply = null, link = null} = {}) {
    this.doc = doc;
    this.k = follow ? doc.steps.length - 1 : Math.max(0, Math.min(doc.steps.length - 1, ply || 0));
    this.follow = follow;
    this.link = link;
    this.as = "";               // "" everyone, else a role
    this.root = el("section", {id: "match"});
    this.render();
  }

  update(doc) {                 // a new version of a live match
    const atEnd = this.k >= this.doc.steps.length - 1;
    this.doc = doc;
    if (this.follow && atEnd) this.k = doc.steps.length - 1;
    this.k = Math.min(this.k, doc.steps.length - 1);
    this.render();
  }

  go(k) {
    this.k = Math.max(0, Math.min(this.doc.steps.length - 1, k));
    this.render();
  }

  play() {
    if (player) { clearInterval(player); player = null; this.render(); return; }
    if (this.k >= this.doc.steps.length - 1) this.k = 0;
    player = setInterval(() => {
      if (this.k >= this.doc.steps.length - 1) { clearInterval(player); player = null; }
      else this.k += 1;
      this.render();
    }, 700);
    this.render();
  }

  key(ev) {
    if (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT") return;
    const moves = {ArrowLeft: this.k - 1, ArrowRight: this.k + 1, Home: 0,
                   End: this.doc.steps.length - 1};
    if (ev.key in moves) { ev.preventDefault(); this.go(moves[ev.key]); }
    else if (ev.key === " ") { ev.preventDefault(); this.play(); }
  }

  render() {
    const d = this.doc, last = d.steps.length - 1, step = d.steps[this.k];
    const as = this.as, roles = as ? [as] : d.roles;
    const button = (id, label, title, k) => el("button", {id, title, onclick: () => this.go(k),
                                                          disabled: k === this.k ? true : null}, label);
    const controls = el("div", {class: "controls"},
      button("first", "|◀", "first (Home)", 0),
      button("back", "◀", "back (←)", this.k - 1 < 0 ? 0 : this.k - 1),
      el("button", {id: "play", title: "play (space)", onclick: () => this.play()},
         player ? "pause" : "play"),
      button("forward", "▶", "forward (→)", Math.min(last, this.k + 1)),
      button("last", "▶|", "last (End)", last),
      el("span", {id: "step-label"}, `step ${this.k} / ${last}`),
      this.link ? el("a", {id: "ply-link", href: this.plyLink(), title: "a link to this step"},
                     "link") : null,
      d.gdl2 ? el("label", {}, " view as ",
        el("select", {id: "view-as", onchange: ev => { this.as = ev.target.value; this.render(); }},
          el("option", {value: ""}, "everyone (omniscient)"),
          d.roles.filter(r => r !== "random").map(r =>
            el("option", {value: r, selected: r === as ? "" : null}, r)))) : null);
    const info = [];
    if (step.moves) {
      info.push(el("h3", {}, as ? `${as} played` : "joint move"),
        el("ul", {id: "moves"}, roles.map(r => el("li", {"data-role": r},
          el("b", {}, r), " ", step.moves[r],
          step.errors[r] ? el("span", {class: "fault-code"}, ` ${step.errors[r]}`) : null,
          step.simulations && step.simulations[r] != null ?
            el("span", {class: "quiet"}, ` (${step.simulations[r].toLocaleString()} simulations)`) : null))));
    } else {
      info.push(el("h3", {}, "initial state"));
    }
    if (step.percepts) {
      info.push(el("h3", {}, as ? `${as} saw` : "percepts"),
        el("ul", {id: "percepts"}, roles.filter(r => r in step.percepts).map(r =>
          el("li", {"data-role": r}, el("b", {}, r), " ",
             step.percepts[r].length ? step.percepts[r].join(" ") : "nothing"))));
    }
    if (step.legal) {
      info.push(el("h3", {}, "legal moves"),
        el("ul", {id: "legal"}, roles.filter(r => r in step.legal).map(r =>
          el("li", {"data-role": r}, el("b", {}, r), ` ${step.legal[r]}`))));
    }
    if (this.k === last && Object.keys(d.goals).length) {
      const best = Math.max(...Object.values(d.goals));
      const winners = d.roles.filter(r => d.goals[r] === best);
      info.push(el("h3", {}, "goals"),
        el("ul", {id: "goals"}, d.roles.filter(r => r in d.goals).map(r =>
          el("li", {"data-role": r, class: d.goals[r] === best ? "winner" : null},
             el("b", {}, r), ` ${d.goals[r]}`))),
        el("p", {id: "result"}, winners.length === d.roles.filter(r => r in d.goals).length
          ? "a draw" : `winner: ${winners.join(", ")}`));
    }
    const faults = d.faults.filter(f => (f.phase === "start" && this.k === 0)
      || (f.phase === "play" && f.step === this.k)
      || ((f.phase === "stop" || f.phase === "abort") && this.k === last));
    if (faults.length) info.push(el("h3", {}, "faults"), faultList(faults));
    const state = as ? el("p", {class: "quiet", id: "hidden-state"},
                         `${as} does not see the state: only its moves and percepts.`)
      : el("div", {}, step.board ? boardTable(step.board, step.changed) : null,
           el("details", {open: step.board ? null : ""}, el("summary", {}, `${step.facts.length} facts`),
              factsList(step.facts)));
    const header = el("div", {class: "header"},
      el("h1", {}, d.game, d.live && !d.completed ? el("span", {class: "tag live"}, "live") : null),
      el("p", {}, d.roles.filter(r => d.players[r] != null).map(r => `${r}: ${d.players[r]}`).join(" · ")),
      d.start ? el("p", {class: "quiet"}, when(d.start)) : null,
      d.notes.map(n => el("p", {class: "note"}, n)));
    this.root.replaceChildren(header, controls,
      el("div", {class: "step"}, el("div", {class: "state"}, state),
         moveList(d, roles, this.k, n => this.go(n)), el("div", {class: "info"}, info)));
    const box = this.root.querySelector("#movelist-box"), current = box.querySelector("tr.current");
    if (current) box.scrollTop = Math.max(0, current.offsetTop - box.clientHeight / 2);
    if (this.link && location.hash !== this.plyLink()) history.replaceState(null, "", this.plyLink());
  }

  plyLink() {
    return `${this.link}?ply=${this.k}`;
  }
}

let shown = null;              // {id, stepper} of the match on the page

async function showMatch(id, ply) {
  const doc = await getJSON(`/api/match/${encodeURIComponent(id)}`);
  if (doc.problem) return show(el("h1", {}, "Match"), problem(doc.problem),
                               el("p", {}, el("a", {href: "#/"}, "back to the list")));
  const stepper = new Stepper(doc, {ply, link: `#/match/${encodeURIComponent(id)}`});
  shown = {id, stepper};
  stepper.root.dataset.requested = id;
  keys = ev => stepper.key(ev);
  document.addEventListener("keydown", keys);
  show(stepper.root);
}

// --- live: a running match or study, pushed by the viewer ----------------------------

function showLive() {
  let stepper = null;
  show(el("p", {class: "quiet", id: "waiting"}, "waiting for the match to start…"));
  events = new EventSource("/api/events");
  events.onmessage = ev => {
    const doc = JSON.parse(ev.data);
    if (doc.live === "study") { renderStudy(doc); return; }
    if (!doc.steps) return;
    if (!stepper) {
      stepper = new Stepper(doc, {follow: true});
      keys = e => stepper.key(e);
      document.addEventListener("keydown", keys);
      show(stepper.root);
    } else {
      stepper.update(doc);
    }
  };
  events.onerror = () => {
    if (events && events.readyState === EventSource.CLOSED) show(problem("the live stream ended"));
  };
}

// --- a study's results ------------------------------------------------------------------

function renderStudy(doc) {
  const done = doc.total ? el("p", {id: "progress"},
    el("progress", {max: doc.total, value: doc.finished}), ` ${doc.finished} / ${doc.total} matches`)
    : el("p", {id: "progress"}, `${doc.finished} matches`);
  const scores = el("table", {id: "scores"},
    el("thead", {}, el("tr", {}, ["game", "player", "opponent", "matches", "wins", "draws", "losses",
                                   "score (95% CI)"].map(h => el("th", {}, h)))),
    el("tbody", {}, doc.table.map(r => el("tr", {},
      el("td", {}, r.game), el("td", {}, r.player), el("td", {}, r.opponent),
      el("td", {class: "num"}, r.matches), el("td", {class: "num"}, r.wins),
      el("td", {class: "num"}, r.draws), el("td", {class: "num"}, r.losses),
      el("td", {class: "num"}, `${Number(r.score).toFixed(1)} (${Number(r.low).toFixed(1)} .. ${Number(r.high).toFixed(1)})`)))));
  const ranking = el("table", {id: "ranking"},
    el("thead", {}, el("tr", {}, ["rank", "player", "Elo (Bradley-Terry)", "95% interval"]
                                  .map(h => el("th", {}, h)))),
    el("tbody", {}, doc.ranking.map((r, i) => el("tr", {},
      el("td", {class: "num"}, i + 1), el("td", {}, r.player), el("td", {class: "num"}, r.elo),
      el("td", {class: "num"}, `${r.low} .. ${r.high}`)))));
  show(el("h1", {}, `Study ${doc.name}`,
          doc.live && doc.finished !== doc.total ? el("span", {class: "tag live"}, "live") : null),
       done, el("h2", {}, "Scores"), scores, el("h2", {}, "Ranking"), ranking,
       doc.plots.map(p => el("figure", {}, el("img", {src: `/api/plot/${encodeURIComponent(p)}`, alt: p}),
                                     el("figcaption", {}, p))));
}

async function showStudy() {
  const doc = await getJSON("/api/study");
  if (doc.problem) return show(el("h1", {}, "Study"), problem(doc.problem));
  renderStudy(doc);
  if (doc.live) {
    events = new EventSource("/api/events");
    events.onmessage = ev => renderStudy(JSON.parse(ev.data));
  }
}

// --- routes -----------------------------------------------------------------------------

function route() {
  // #/match/ID?ply=K opens a match at step K; the stepper keeps ?ply= up to date.
  const [hash, query] = (location.hash || "#/").split("?");
  const ply = Number.parseInt(new URLSearchParams(query || "").get("ply"), 10);
  const at = Number.isNaN(ply) ? null : ply;
  if (hash.startsWith("#/match/")) {
    const id = decodeURIComponent(hash.slice(8));
    if (shown && shown.id === id && main.contains(shown.stepper.root)) {
      shown.stepper.go(at === null ? 0 : at);    // another step of the match on the page
      return;
    }
    stopLive();
    showMatch(id, at);
    return;
  }
  stopLive();
  shown = null;
  if (hash === "#/live") showLive();
  else if (hash === "#/study") showStudy();
  else showList();
}

window.addEventListener("hashchange", route);
getJSON("/api/matches").then(data => {
  if (!data.problem) showNav(data);
  route();
});
