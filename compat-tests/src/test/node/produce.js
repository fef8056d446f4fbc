'use strict';
// A kafkajs producer against a broker, run by KafkajsCompatTest.
// Usage: node produce.js <brokers> <topic> <partitions> <records per codec> <codecs> <plain|idempotent>
// For each codec in the comma-separated list (none, gzip, snappy, lz4), in that order, sends one
// request (await producer.send) with the records i = 0..n-1 of that codec:
//   partition i % partitions, key "k-<codec>-<i>" (null when i % 5 == 4),
//   value "<codec>-<i>-" + 100 x "x" (compressible), headers codec=<codec>, idx=<i>.
// Prints JSON on stdout: the partitions and base offsets the broker acknowledged per codec, and
// how often each codec compressed. Exits non-zero on an error or after 60 s.
const { Kafka, logLevel } = require('kafkajs');
const { compressionType, calls } = require('./codecs');

// kafkajs logs to stdout by default; stdout carries the JSON result, so logs go to stderr
const toStderr = () => ({ level, log }) => console.error(JSON.stringify({ level, ...log }));

const [brokers, topic, partitionsArg, perCodecArg, codecsArg, mode] = process.argv.slice(2);
const partitions = Number(partitionsArg);
const perCodec = Number(perCodecArg);
const codecs = codecsArg.split(',');

const deadline = setTimeout(() => {
  console.error('timed out after 60 s');
  process.exit(2);
}, 60000);

async function main() {
  const kafka = new Kafka({ clientId: 'brook-compat-kafkajs-producer', brokers: brokers.split(','), logLevel: logLevel.ERROR, logCreator: toStderr });
  const producer = kafka.producer(mode === 'idempotent' ? { idempotent: true, maxInFlightRequests: 1 } : {});
  await producer.connect();
  const acks = [];
  for (const codec of codecs) {
    const messages = [];
    for (let i = 0; i < perCodec; i++) {
      messages.push({
        partition: i % partitions,
        key: i % 5 === 4 ? null : `k-${codec}-${i}`,
        value: `${codec}-${i}-${'x'.repeat(100)}`,
        headers: { codec, idx: String(i) },
      });
    }
    const metadata = await producer.send({ topic, messages, acks: -1, compression: compressionType(codec) });
    acks.push({
      codec,
      partitions: metadata.map((m) => ({ partition: m.partition, errorCode: m.errorCode, baseOffset: Number(m.baseOffset) }))
        .sort((a, b) => a.partition - b.partition),
    });
  }
  await producer.disconnect();
  clearTimeout(deadline);
  process.stdout.write(JSON.stringify({ acks, calls }) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
