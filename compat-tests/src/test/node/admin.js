'use strict';
// The kafkajs admin client against a broker, run by KafkajsCompatTest.
// Usage: node admin.js <brokers> <topic> <partitions>
// Creates <topic> with <partitions> partitions and retention.ms=3600000 (CreateTopics v3), creates
// it again (kafkajs reports false: TOPIC_ALREADY_EXISTS), asks for replication factor 3 on another
// name (rejected), reads the metadata (Metadata v6), the listing and the topic config
// (DescribeConfigs v2), grows the topic by two partitions (CreatePartitions v1) and reads the
// metadata again. Prints what it saw as JSON. Exits non-zero on an unexpected error or after 60 s.
const { Kafka, logLevel, ConfigResourceTypes } = require('kafkajs');

// kafkajs logs to stdout by default; stdout carries the JSON result, so logs go to stderr
const toStderr = () => ({ level, log }) => console.error(JSON.stringify({ level, ...log }));

const [brokers, topic, partitionsArg] = process.argv.slice(2);
const partitions = Number(partitionsArg);

const deadline = setTimeout(() => {
  console.error('timed out after 60 s');
  process.exit(2);
}, 60000);

const describe = (metadata) => metadata.topics.map((t) => ({
  name: t.name,
  partitions: t.partitions.map((p) => ({
    id: p.partitionId, error: p.partitionErrorCode, leader: p.leader, replicas: p.replicas, isr: p.isr,
  })).sort((a, b) => a.id - b.id),
}));

async function main() {
  const kafka = new Kafka({ clientId: 'brook-compat-kafkajs-admin', brokers: brokers.split(','), logLevel: logLevel.ERROR, logCreator: toStderr });
  const admin = kafka.admin();
  await admin.connect();
  const spec = { topic, numPartitions: partitions, replicationFactor: 1, configEntries: [{ name: 'retention.ms', value: '3600000' }] };
  const created = await admin.createTopics({ topics: [spec], waitForLeaders: true });
  const createdAgain = await admin.createTopics({ topics: [spec], waitForLeaders: true });
  let badReplication = null;
  try {
    await admin.createTopics({ topics: [{ topic: `${topic}-rf3`, numPartitions: 1, replicationFactor: 3 }] });
    badReplication = 'accepted';
  } catch (e) {
    badReplication = (e.errors && e.errors[0] && e.errors[0].type) || e.type || e.name;
  }
  const metadata = describe(await admin.fetchTopicMetadata({ topics: [topic] }));
  const listed = (await admin.listTopics()).includes(topic);
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
  });
  const retention = configs.resources[0].configEntries.find((c) => c.configName === 'retention.ms');
  await admin.createPartitions({ topicPartitions: [{ topic, count: partitions + 2 }] });
  // Kafka's brokers learn of new partitions from the metadata log a moment after the controller
  // acknowledged them (Brook at once): look again until they appear, for at most 30 s
  let grown = describe(await admin.fetchTopicMetadata({ topics: [topic] }));
  for (let tries = 0; grown[0].partitions.length < partitions + 2 && tries < 300; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    grown = describe(await admin.fetchTopicMetadata({ topics: [topic] }));
  }
  await admin.disconnect();
  clearTimeout(deadline);
  process.stdout.write(JSON.stringify({
    created, createdAgain, badReplication, listed,
    retentionMs: retention ? retention.configValue : null,
    metadata, grown: grown[0].partitions.length,
  }) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
