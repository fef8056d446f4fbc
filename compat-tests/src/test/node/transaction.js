'use strict';
// kafkajs transactions against a broker, run by KafkajsTransactionsCompatTest.
// Usage:
//   node transaction.js <brokers> <transactional id> commit|abort <topic> <partitions> <records> <prefix>
//     one producer.transaction(): sends the records "<prefix>-<i>" (i = 0..records-1, partition
//     i % partitions) in one transaction.send(), then commits or aborts it.
//   node transaction.js <brokers> <transactional id> transform-commit|transform-abort <input> <output> <group> <records>
//     consume-transform-produce: a kafkajs consumer in <group> (read_committed, no auto-commit)
//     reads <input> from the group's committed offsets; for each batch one transaction sends each
//     value prefixed with "T-" to the same partition of <output> and, with transaction.sendOffsets, the
//     offset after the batch; the transaction commits (transform-commit) or aborts
//     (transform-abort, which stops after its first batch). Stops once <records> were transformed.
// Prints JSON on stdout: what was sent in transactions that were committed and aborted. Exits
// non-zero on an error or after 60 s.
const { Kafka, logLevel } = require('kafkajs');

// kafkajs logs to stdout by default; stdout carries the JSON result, so logs go to stderr
const toStderr = () => ({ level, log }) => console.error(JSON.stringify({ level, ...log }));

const [brokers, transactionalId, mode, ...rest] = process.argv.slice(2);

const deadline = setTimeout(() => {
  console.error('timed out after 60 s');
  process.exit(2);
}, 60000);

function kafka() {
  return new Kafka({ clientId: 'brook-compat-kafkajs-txn', brokers: brokers.split(','), logLevel: logLevel.ERROR, logCreator: toStderr });
}

function transactionalProducer(client) {
  return client.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
}

async function plain(commit) {
  const [topic, partitionsArg, recordsArg, prefix] = rest;
  const partitions = Number(partitionsArg);
  const messages = [];
  for (let i = 0; i < Number(recordsArg); i++) {
    messages.push({ partition: i % partitions, key: `${prefix}-${i}`, value: `${prefix}-${i}` });
  }
  const producer = transactionalProducer(kafka());
  await producer.connect();
  const transaction = await producer.transaction();
  try {
    await transaction.send({ topic, messages });
    if (commit) {
      await transaction.commit();
    } else {
      await transaction.abort();
    }
  } catch (e) {
    await transaction.abort();
    throw e;
  }
  await producer.disconnect();
  const values = messages.map((m) => m.value);
  return commit ? { committed: values, aborted: [] } : { committed: [], aborted: values };
}

async function transform(commit) {
  const [input, output, groupId, recordsArg] = rest;
  const wanted = Number(recordsArg);
  const client = kafka();
  const producer = transactionalProducer(client);
  const consumer = client.consumer({ groupId, readUncommitted: false, sessionTimeout: 10000, heartbeatInterval: 1000 });
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topic: input, fromBeginning: true });
  const result = { committed: [], aborted: [] };
  let transformed = 0;
  let finish;
  const finished = new Promise((resolve, reject) => { finish = { resolve, reject }; });
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, isRunning, isStale }) => {
      if (!isRunning() || isStale() || batch.messages.length === 0 || transformed >= wanted) {
        return;
      }
      const messages = batch.messages.map((m) => ({ partition: batch.partition, value: `T-${m.value.toString()}` }));
      const next = (BigInt(batch.lastOffset()) + 1n).toString();
      try {
        const transaction = await producer.transaction();
        await transaction.send({ topic: output, messages });
        await transaction.sendOffsets({
          consumerGroupId: groupId,
          topics: [{ topic: input, partitions: [{ partition: batch.partition, offset: next }] }],
        });
        const values = messages.map((m) => m.value);
        if (commit) {
          await transaction.commit();
          result.committed.push(...values);
          resolveOffset(batch.lastOffset());
        } else {
          await transaction.abort();
          result.aborted.push(...values);
        }
        transformed += messages.length;
        if (transformed >= wanted || !commit) {
          finish.resolve();
        }
      } catch (e) {
        finish.reject(e);
      }
    },
  });
  await finished;
  await consumer.disconnect();
  await producer.disconnect();
  return result;
}

async function main() {
  let result;
  switch (mode) {
    case 'commit': result = await plain(true); break;
    case 'abort': result = await plain(false); break;
    case 'transform-commit': result = await transform(true); break;
    case 'transform-abort': result = await transform(false); break;
    default: throw new Error(`unknown mode ${mode}`);
  }
  clearTimeout(deadline);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
