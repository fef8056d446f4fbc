'use strict';
// kafkajs over TLS with SASL, run by KafkajsSecurityCompatTest.
// Usage: node secure.js <brokers> <ca.pem> <mechanism|none> <user> <password> <topic>
// Connects with ssl (the CA given, Node's hostname check on), authenticates with the mechanism
// (none: TLS only; oauthbearer: an unsecured token, alg none, whose sub is <user> and which expires
// <password> seconds from now), creates <topic>, produces three records and reads the metadata. Prints what it
// saw as JSON. Exits non-zero on an error (printed to stderr, e.g. an authentication failure)
// or after 60 s.
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const toStderr = () => ({ level, log }) => console.error(JSON.stringify({ level, ...log }));
const [brokers, caFile, mechanism, username, password, topic] = process.argv.slice(2);

// An unsecured JWS as Kafka's default validator takes it: header {"alg":"none"}, no signature.
function unsecuredToken(sub, lifetimeSeconds) {
  const now = Math.floor(Date.now() / 1000);
  const part = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none' })}.${part({ sub, iat: now, exp: now + lifetimeSeconds })}.`;
}

function sasl() {
  if (mechanism === 'none') {
    return undefined;
  }
  if (mechanism === 'oauthbearer') {
    return { mechanism, oauthBearerProvider: async () => ({ value: unsecuredToken(username, Number(password)) }) };
  }
  return { mechanism, username, password };
}

const deadline = setTimeout(() => {
  console.error('timed out after 60 s');
  process.exit(2);
}, 60000);

async function main() {
  const kafka = new Kafka({
    clientId: 'brook-compat-kafkajs-secure',
    brokers: brokers.split(','),
    ssl: { ca: [fs.readFileSync(caFile, 'utf8')] },
    sasl: sasl(),
    retry: { retries: 2 },
    logLevel: logLevel.ERROR,
    logCreator: toStderr,
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  const sent = await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
  const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
  await producer.disconnect();
  await admin.disconnect();
  console.log(JSON.stringify({ sent: sent.map((r) => r.errorCode), partitions: metadata.topics[0].partitions.length }));
}

main().then(() => {
  clearTimeout(deadline);
  process.exit(0);
}, (e) => {
  console.error(`${e.name}: ${e.message}`);
  process.exit(1);
});
