// Brook's console: reads /metrics (Prometheus text) and /console.json (topic configs, group
// members) every two seconds and shows the broker, its topics and consumer groups. Counters become rates between two readings; charts keep the last
// sixty readings. Everything is written with textContent: names from the broker are never markup.
"use strict";

const REFRESH_MS = 2000;
const HISTORY = 60;
let previous = null;
const history = {};

function parse(text) {
  const samples = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    if (m[3]) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
      let l;
      while ((l = re.exec(m[3])) !== null) {
        labels[l[1]] = l[2].replace(/\\n/g, "\n").replace(/\\"/g, "\"").replace(/\\\\/g, "\\");
      }
    }
    samples.push({ name: m[1], labels, value: parseFloat(m[4]) });
  }
  return samples;
}

function pick(samples, name, match) {
  return samples.filter(s => s.name === name && Object.entries(match || {}).every(([k, v]) =>
    v === undefined ? !(k in s.labels) : s.labels[k] === v));
}

function one(samples, name, match) {
  const found = pick(samples, name, match);
  return found.length ? found[0].value : NaN;
}

function fmt(n) {
  if (!isFinite(n)) return "–";
  const units = ["", "k", "M", "G", "T"];
  let i = 0;
  while (Math.abs(n) >= 1000 && i < units.length - 1) { n /= 1000; i++; }
  return (i === 0 ? Math.round(n * 10) / 10 : n.toFixed(1)) + units[i];
}

function bytes(n) {
  if (!isFinite(n)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
}

function remember(key, value) {
  const h = history[key] || (history[key] = []);
  h.push(isFinite(value) ? value : 0);
  if (h.length > HISTORY) h.shift();
  return h;
}

function draw(canvas, points) {
  const ctx = canvas.getContext("2d");
  const w = canvas.width, h = canvas.height;
  ctx.clearRect(0, 0, w, h);
  if (points.length < 2) return;
  const max = Math.max(1, ...points);
  ctx.strokeStyle = "#4cc2ff";
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  points.forEach((p, i) => {
    const x = (i / (HISTORY - 1)) * w;
    const y = h - 2 - (p / max) * (h - 4);
    if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
  });
  ctx.stroke();
}

function rate(now, name, match, seconds) {
  if (!previous || seconds <= 0) return NaN;
  const a = one(previous.samples, name, match), b = one(now, name, match);
  return isFinite(a) && isFinite(b) ? Math.max(0, (b - a) / seconds) : NaN;
}

function cell(tr, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
  return td;
}

function configsText(configs) {
  return Object.keys(configs || {}).sort().map(k => k + "=" + configs[k]).join(", ");
}

function assignmentText(assignment) {
  return Object.keys(assignment).sort().map(t => t + ": " + assignment[t].join(", ")).join("; ");
}

function render(samples, at, details) {
  const configs = {};
  for (const t of details.topics || []) configs[t.name] = t.configs;
  const seconds = previous ? (at - previous.at) / 1000 : 0;
  const state = one(samples, "kafka_server_kafkaserver_brokerstate");
  const stateEl = document.getElementById("state");
  stateEl.textContent = { 1: "starting", 2: "recovering", 3: "running", 7: "shutting down" }[state] || "unknown";
  stateEl.className = "pill" + (state === 3 ? " running" : "");
  document.getElementById("updated").textContent = "updated " + new Date(at).toLocaleTimeString();

  const cards = [
    ["messages", rate(samples, "kafka_server_brokertopicmetrics_messagesinpersec_total", { topic: undefined }, seconds), fmt],
    ["bytes-in", rate(samples, "kafka_server_brokertopicmetrics_bytesinpersec_total", { topic: undefined }, seconds), bytes],
    ["bytes-out", rate(samples, "kafka_server_brokertopicmetrics_bytesoutpersec_total", { topic: undefined }, seconds), bytes],
  ];
  for (const [id, value, f] of cards) {
    document.getElementById("rate-" + id).textContent = f(value);
    draw(document.getElementById("chart-" + id), remember(id, value));
  }
  for (const [id, request] of [["produce-p99", "Produce"], ["fetch-p99", "Fetch"]]) {
    const v = one(samples, "kafka_network_requestmetrics_totaltimems", { request, quantile: "0.99" });
    document.getElementById(id).textContent = fmt(v);
    draw(document.getElementById("chart-" + id), remember(id, v));
  }
  const conns = pick(samples, "kafka_server_socket_server_metrics_connection_count").reduce((a, s) => a + s.value, 0);
  document.getElementById("connections").textContent = fmt(conns);
  document.getElementById("partitions").textContent =
    fmt(one(samples, "kafka_server_replicamanager_partitioncount")) + " partitions";

  const topics = {};
  for (const s of pick(samples, "kafka_log_log_size")) {
    const t = s.labels.topic;
    if (t.startsWith("__")) continue;
    const p = s.labels.partition;
    const entry = topics[t] || (topics[t] = { size: 0, partitions: {} });
    entry.size += s.value;
    entry.partitions[p] = {
      start: one(samples, "kafka_log_log_logstartoffset", { topic: t, partition: p }),
      end: one(samples, "kafka_log_log_logendoffset", { topic: t, partition: p }),
    };
  }
  const tbody = document.querySelector("#topics tbody");
  tbody.replaceChildren();
  for (const name of Object.keys(topics).sort()) {
    const t = topics[name];
    const parts = Object.keys(t.partitions).sort((a, b) => a - b);
    const tr = document.createElement("tr");
    tr.dataset.topic = name;
    cell(tr, name);
    cell(tr, String(parts.length), "num");
    cell(tr, bytes(t.size), "num");
    cell(tr, parts.map(p => t.partitions[p].start).join(", "), "num");
    cell(tr, parts.map(p => t.partitions[p].end).join(", "), "num");
    cell(tr, String(one(samples, "kafka_server_brokertopicmetrics_messagesinpersec_total", { topic: name }) || 0), "num");
    cell(tr, bytes(rate(samples, "kafka_server_brokertopicmetrics_bytesinpersec_total", { topic: name }, seconds)), "num");
    cell(tr, bytes(rate(samples, "kafka_server_brokertopicmetrics_bytesoutpersec_total", { topic: name }, seconds)), "num");
    cell(tr, configsText(configs[name]), "configs");
    tbody.appendChild(tr);
  }

  const gbody = document.querySelector("#groups tbody");
  gbody.replaceChildren();
  const lags = pick(samples, "brook_consumer_consumerlag_recordslag").sort((a, b) =>
    (a.labels.group + a.labels.topic).localeCompare(b.labels.group + b.labels.topic) || a.labels.partition - b.labels.partition);
  for (const s of lags) {
    const { group, topic, partition } = s.labels;
    const tr = document.createElement("tr");
    tr.dataset.group = group;
    cell(tr, group);
    cell(tr, topic);
    cell(tr, partition, "num");
    cell(tr, String(s.value), "num" + (s.value > 0 ? " lagging" : ""));
    const ms = one(samples, "brook_consumer_consumerlag_timelagms", { group, topic, partition });
    cell(tr, isFinite(ms) ? (ms / 1000).toFixed(1) + " s" : "–", "num");
    const canvas = document.createElement("canvas");
    canvas.width = 120;
    canvas.height = 24;
    cell(tr, "").appendChild(canvas);
    draw(canvas, remember("lag|" + group + "|" + topic + "|" + partition, s.value));
    gbody.appendChild(tr);
  }

  const mbody = document.querySelector("#members tbody");
  mbody.replaceChildren();
  for (const g of details.groups || []) {
    for (const m of g.members) {
      const tr = document.createElement("tr");
      tr.dataset.member = m.memberId;
      cell(tr, g.group);
      cell(tr, m.memberId);
      cell(tr, m.clientId);
      cell(tr, m.host);
      cell(tr, assignmentText(m.assignment));
      mbody.appendChild(tr);
    }
  }
  previous = { samples, at };
}

async function refresh() {
  try {
    const [metrics, details] = await Promise.all([
      fetch("/metrics", { cache: "no-store" }).then(r => r.text()),
      fetch("/console.json", { cache: "no-store" }).then(r => r.json()).catch(() => ({})),
    ]);
    render(parse(metrics), Date.now(), details);
  } catch (e) {
    document.getElementById("state").textContent = "unreachable";
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
