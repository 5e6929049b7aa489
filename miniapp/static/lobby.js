// The lobby's settings sheet and local mode's new-game sheet, both drawn from the one
// settings schema the server describes (core/service/lobby_settings.py): a setting or a
// variant added there shows up here with no change to this file.
import * as api from "./api.js";
import * as app from "./app.js";
import { t } from "./i18n.js";
import { esc } from "./icons.js";
import { closeOverlay, openSheet } from "./sheets.js";
import { S, toast } from "./ui.js";

const $ = (sel) => document.querySelector(sel);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
// the page's names for the schema's settings (variants take theirs from the catalogue)
const LABEL = { edition: "edition", rounds: "setRounds", turn_time: "setTurnTime", slow: "setSlow",
  computer_level: "computerLevel", language: "setLanguage", open_join: "setOpenJoin" };
const HIDDEN_HERE = new Set(["language"]); // the bot's language: set in the group (/lang)

export function duration(s) {
  if (s === null || s === undefined) return t("noLimit");
  if (s < 60) return t("secs", { n: s });
  if (s < 3600) return t("mins", { n: Math.round(s / 6) / 10 });
  return t("hours", { n: Math.round(s / 360) / 10 });
}

function valueText(spec, v) {
  if (spec.name === "edition") return t(v) || v;
  if (spec.name === "computer_level") return t(`levels.${v}`) || v;
  if (spec.name === "turn_time") return duration(v);
  return String(v);
}

function label(spec) {
  return spec.where === "option" && spec.kind === "flag" ? (t(`variants.${spec.name}`) || spec.name) : (t(LABEL[spec.name]) || spec.name);
}

function choicesOf(spec, values) {
  let list = spec.choices || [];
  for (const [flag, alt] of Object.entries(spec.choices_when || {})) if (values[flag] === true) list = alt;
  return list.some((c) => same(c, values[spec.name])) ? list : [...list, values[spec.name]];
}

// The settings the lobby front ends offer for this edition, in the schema's order.
export function shown(schema, edition) {
  return schema.settings.filter((s) => s.offered && s.editions.includes(edition) && !HIDDEN_HERE.has(s.name));
}

// One control per setting: a select for choices and numbers, a switch for flags.
// ids: "<prefix><name>" unless `ids` names it.
function controls(schema, values, { prefix, editable, ids = {} }) {
  const off = editable ? "" : " disabled";
  return shown(schema, values.edition).map((spec) => {
    const id = ids[spec.name] || `${prefix}${spec.name}`;
    if (spec.kind === "flag") {
      return `<label class="switch"><input type="checkbox" id="${id}" data-name="${spec.name}"${values[spec.name] ? " checked" : ""}${off}><span>${esc(label(spec))}</span></label>`;
    }
    const opts = choicesOf(spec, values).map((c) =>
      `<option value="${esc(optionValue(c))}"${same(c, values[spec.name]) ? " selected" : ""}>${esc(valueText(spec, c))}</option>`).join("");
    return `<label>${esc(label(spec))}<select id="${id}" data-name="${spec.name}"${off}>${opts}</select></label>`;
  }).join("");
}

// An option's value names its choice ("expansion", "60", "null"); reading it back finds the
// choice itself, so null and numbers keep their type.
const optionValue = (c) => (typeof c === "string" ? c : JSON.stringify(c));

function read(schema, values, el) {
  const spec = schema.settings.find((s) => s.name === el.dataset.name);
  if (!spec) return [null, undefined];
  if (spec.kind === "flag") return [spec.name, el.checked];
  return [spec.name, choicesOf(spec, values).find((c) => optionValue(c) === el.value)];
}

function range(lo, hi, pick, id, off = "") {
  const opts = [];
  for (let n = lo; n <= hi; n++) opts.push(`<option value="${n}"${n === pick ? " selected" : ""}>${n}</option>`);
  return `<select id="${id}"${off}>${opts.join("")}</select>`;
}

// --- a lobby's settings (anyone may look; its creator changes them) ----------------------------

let sheet = null; // the lobby's settings as last fetched, while its sheet is open

export async function lobbySettings() {
  const st = S();
  try { sheet = await api.request("GET", `/api/games/${encodeURIComponent(st.gameId)}/settings`); } catch (e) { toast(app.errorText(e)); return; }
  drawLobby();
}

function drawLobby() {
  const s = sheet;
  const v = S().view || {};
  const humans = (v.seats || []).filter((x) => !x.computer).length;
  const most = Math.max(0, Math.min(s.max_computers, (s.values.seats || 10) - humans));
  const off = s.editable ? "" : " disabled";
  openSheet(`<h2 id="lobby-settings">${esc(t("settingsTitle"))}</h2>
    ${s.editable ? "" : `<p class="hint" id="settings-readonly">${esc(t("creatorSets"))}</p>`}
    ${controls(s.schema, s.values, { prefix: "set-", editable: s.editable })}
    <label>${esc(t("computerSeats"))}${range(0, most, Math.min(s.computers, most), "set-computers", off)}</label>
    <div class="actions"><button type="button" data-close class="primary">${esc(t("close"))}</button></div>`,
  (el) => {
    el.querySelector("[data-close]").onclick = () => { sheet = null; closeOverlay(); };
    if (!s.editable) return;
    for (const c of el.querySelectorAll("[data-name]")) {
      c.onchange = () => {
        const [name, value] = read(s.schema, s.values, c);
        if (name) change({ settings: { [name]: value } });
      };
    }
    el.querySelector("#set-computers").onchange = (e) => change({ computers: Number(e.target.value) });
  });
}

// A lobby view carries every value the sheet shows (where the schema says it is): the sheet
// follows each new view at once, with no second request.
function follow(view) {
  const values = {};
  for (const spec of sheet.schema.settings) {
    if (spec.where === "game") values[spec.name] = view[spec.name];
    else if (spec.where === "option") values[spec.name] = (view.options || {})[spec.name] ?? spec.default;
    else if (spec.name === "seats") values.seats = (view.settings || {}).max_seats;
    else values[spec.name] = (view.settings || {})[spec.name];
  }
  sheet = { ...sheet, values, computers: (view.seats || []).filter((x) => x.computer).length };
}

async function change(body) {
  const st = S();
  try {
    app.setView(await api.request("PATCH", `/api/games/${encodeURIComponent(st.gameId)}/settings`, body));
  } catch (e) {
    toast(app.errorText(e)); // refused: the sheet shows the settings as they still are
    if (sheet && $("#lobby-settings")) drawLobby();
  }
}

// A new view while the sheet is open (this player's change, or the creator's): draw it.
export function onView(view) {
  if (!sheet || !$("#lobby-settings") || sheet.game_id !== view.game_id) return;
  if (view.status !== "lobby") { sheet = null; closeOverlay(); return; }
  follow(view);
  drawLobby();
}

// --- local mode: a new game against the computer, with every setting -------------------------

let schemaCache = null;

export async function newGameSheet() {
  if (!schemaCache) {
    try { schemaCache = await (await fetch("/api/settings/schema?context=private")).json(); } catch (e) { toast(t("error")); return; }
  }
  const schema = schemaCache;
  const values = {};
  for (const s of schema.settings) values[s.name] = s.default;
  // the strength of the table just played, if any: a new game keeps it
  values.computer_level = ((S().view || {}).settings || {}).computer_level || values.computer_level;
  let seats = 5;
  const draw = () => {
    const [lo, hi] = schema.players[values.edition];
    seats = Math.max(lo, Math.min(hi, seats));
    openSheet(`<h2 id="new-game">${esc(t("newGame"))}</h2>
      ${controls(schema, values, { prefix: "ng-", editable: true, ids: { computer_level: "ng-level" } })}
      <label>${esc(t("seats"))}${range(lo, hi, seats, "ng-seats")}</label>
      <div class="actions"><button type="button" class="primary" id="ng-start">${esc(t("start"))}</button><button type="button" data-close>${esc(t("close"))}</button></div>`,
    (el) => {
      for (const c of el.querySelectorAll("[data-name]")) {
        c.onchange = () => {
          const [name, value] = read(schema, values, c);
          if (!name) return;
          values[name] = value;
          if (name === "edition" || name === "slow") draw();
        };
      }
      el.querySelector("#ng-seats").onchange = (e) => { seats = Number(e.target.value); };
      el.querySelector("#ng-start").onclick = () => start(schema, values, seats);
      el.querySelector("[data-close]").onclick = closeOverlay;
    });
  };
  draw();
}

async function start(schema, values, seats) {
  const options = {};
  const settings = {};
  for (const spec of shown(schema, values.edition)) {
    if (spec.name === "edition" || spec.name === "computer_level") continue;
    if (spec.where === "option") options[spec.name] = values[spec.name];
    else settings[spec.name] = values[spec.name];
  }
  try {
    const made = await api.createGame({ edition: values.edition, seats, computer_seats: seats - 1,
      level: values.computer_level, options, settings });
    closeOverlay();
    await app.openGame(made.game_id);
  } catch (e) {
    toast(app.errorText(e));
  }
}
