'use strict';
// kafkajs as a "simple consumer", run by KafkajsCompatTest. kafkajs has no assign(): the admin
// client's fetchTopicOffsets (ListOffsets) gives the end of every partition, and a one-member
// consumer group reading from the beginning stops when it reached all of them.
// Usage: node consume.js <brokers> <topic> <group>
// Prints one JSON line per record, in the order kafkajs delivered them:
//   {"p":partition,"o":offset,"k":key or null,"v":value,"h":{header:value,...}}
// then a last line {"ends":{partition:end offset},"calls":{codec:{compress,decompress}}}.
// Exits non-zero on an error or after 60 s.
const { Kafka, logLevel } = require('kafkajs');
const { calls } = require('./codecs');

// kafkajs logs to stdout by default; stdout carries the JSON result, so logs go to stderr
const toStderr = () => ({ level, log }) => console.error(JSON.stringify({ level, ...log }));

const [brokers, topic, groupId] = process.argv.slice(2);

const deadline = setTimeout(() => {
  console.error('timed out after 60 s');
  process.exit(2);
}, 60000);

async function main() {
  const kafka = new Kafka({ clientId: 'brook-compat-kafkajs-consumer', brokers: brokers.split(','), logLevel: logLevel.ERROR, logCreator: toStderr });
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic);
  await admin.disconnect();
  const ends = {};
  const next = {};
  for (const o of offsets) {
    ends[o.partition] = Number(o.high);
    next[o.partition] = Number(o.low);
  }
  const reached = () => Object.keys(ends).every((p) => next[p] >= ends[p]);
  const lines = [];
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  const consumer = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10000 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  if (reached()) finish();
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const headers = {};
      for (const [k, v] of Object.entries(message.headers || {})) {
        headers[k] = v === null || v === undefined ? null : v.toString();
      }
      lines.push(JSON.stringify({
        p: partition,
        o: Number(message.offset),
        k: message.key === null ? null : message.key.toString(),
        v: message.value === null ? null : message.value.toString(),
        h: headers,
      }));
      next[partition] = Number(message.offset) + 1;
      if (reached()) finish();
    },
  });
  await done;
  await consumer.disconnect();
  clearTimeout(deadline);
  process.stdout.write(lines.map((l) => l + '\n').join('') + JSON.stringify({ ends, calls }) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
