'use strict';
// A kafkajs consumer group against a broker, run by KafkajsCompatTest.
// Usage: node group-consumer.js <brokers> <topic> <group> <expected distinct records> [members]
// Starts <members> consumers in one group, reads from the beginning until every expected record
// was seen, disconnects (which commits what was processed and leaves the group) and prints
// what it read, what the admin client reports (committed offsets, group state, listing) as JSON
// on stdout. Exits non-zero on an error or after 60 s.
const { Kafka, logLevel } = require('kafkajs');

const [brokers, topic, groupId, expectedArg, membersArg] = process.argv.slice(2);
const expected = Number(expectedArg);
const members = Number(membersArg || 2);

const kafka = new Kafka({
  clientId: 'brook-compat-kafkajs',
  brokers: brokers.split(','),
  logLevel: logLevel.ERROR,
});

const seen = new Set();
let total = 0;
let finish;
const allSeen = new Promise((resolve) => { finish = resolve; });
const deadline = setTimeout(() => {
  console.error(`timed out after reading ${seen.size} of ${expected} records`);
  process.exit(2);
}, 60000);

async function main() {
  const consumers = [];
  for (let i = 0; i < members; i++) {
    const consumer = kafka.consumer({ groupId, heartbeatInterval: 500, sessionTimeout: 10000 });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        total++;
        seen.add(message.value.toString());
        if (seen.size >= expected) finish();
      },
    });
    consumers.push(consumer);
  }
  await allSeen;
  for (const consumer of consumers) {
    await consumer.disconnect();
  }
  // the admin side as kafkajs sees it: OffsetFetch v4, DescribeGroups v2, ListGroups v2
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
  const described = await admin.describeGroups([groupId]);
  const listed = await admin.listGroups();
  await admin.disconnect();
  clearTimeout(deadline);
  process.stdout.write(JSON.stringify({
    total,
    values: [...seen],
    committed: offsets[0].partitions.map((p) => ({ partition: p.partition, offset: Number(p.offset) })),
    state: described.groups[0].state,
    listed: listed.groups.some((g) => g.groupId === groupId && g.protocolType === 'consumer'),
  }) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
