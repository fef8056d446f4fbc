// @platformatic/kafka (a pure JavaScript client written apart from kafkajs) against a broker, run
// by PlatformaticCompatTest.
// Usage: node platformatic.mjs <brokers> <name suffix>
// 1. creates topic plat-<s> (3 partitions) and plat-txn-<s> (2 partitions);
// 2. an idempotent producer sends 12 records to plat-<s>, record i to partition i % 3 with key
//    k<i>, value v<i> and header idx=<i>, the first six uncompressed, the rest gzip;
// 3. a transactional producer commits c0 (partition 0) and c1 (partition 1) to plat-txn-<s>,
//    aborts a0 (partition 0), then commits c2 (partition 0);
// 4. a consumer of group plat-g-<s> reads plat-<s> from the earliest offsets, commits the offset
//    after the last record of each partition, and the group and its offsets are described;
// 5. a read_committed consumer reads plat-txn-<s>;
// 6. the latest offsets of both topics are listed, then both topics are deleted.
// Prints one JSON line on stdout with what each step saw. Exits non-zero on an error or after 90 s.
import { Admin, Consumer, Producer, FetchIsolationLevels, CompressionAlgorithms, stringDeserializers,
  stringSerializers } from '@platformatic/kafka'

const [brokers, suffix] = process.argv.slice(2)
const topic = `plat-${suffix}`
const txnTopic = `plat-txn-${suffix}`
const group = `plat-g-${suffix}`
const base = { bootstrapBrokers: brokers.split(','), timeout: 15000, retries: 5, retryDelay: 300 }

const deadline = setTimeout(() => {
  console.error('timed out after 90 s')
  process.exit(2)
}, 90000)

// the records of a stream until `count` came, failing after `ms`
function take (stream, count, ms) {
  return new Promise((resolve, reject) => {
    const out = []
    const timer = setTimeout(() => reject(new Error(`only ${out.length} of ${count} records in ${ms} ms`)), ms)
    stream.on('data', m => {
      out.push(m)
      if (out.length === count) {
        clearTimeout(timer)
        resolve(out)
      }
    })
    stream.on('error', e => {
      clearTimeout(timer)
      reject(e)
    })
  })
}

const big = x => typeof x === 'bigint' ? Number(x) : x

async function main () {
  const result = {}
  const admin = new Admin({ ...base, clientId: 'brook-compat-plat-admin' })
  const created = await admin.createTopics({ topics: [topic], partitions: 3, replicas: 1 })
  await admin.createTopics({ topics: [txnTopic], partitions: 2, replicas: 1 })
  result.created = created.map(t => ({ name: t.name, partitions: t.partitions }))

  const producer = new Producer({ ...base, clientId: 'brook-compat-plat-producer', idempotent: true, serializers: stringSerializers })
  const records = i => ({ topic, partition: i % 3, key: `k${i}`, value: `v${i}`, headers: new Map([['idx', String(i)]]) })
  await producer.send({ messages: [0, 1, 2, 3, 4, 5].map(records) })
  await producer.send({ compression: CompressionAlgorithms.GZIP, messages: [6, 7, 8, 9, 10, 11].map(records) })
  await producer.close()

  const txp = new Producer({ ...base, clientId: 'brook-compat-plat-txn', idempotent: true, transactionalId: `plat-tx-${suffix}`, serializers: stringSerializers })
  let tx = await txp.beginTransaction()
  await tx.send({ messages: [{ topic: txnTopic, partition: 0, value: 'c0' }, { topic: txnTopic, partition: 1, value: 'c1' }] })
  await tx.commit()
  tx = await txp.beginTransaction()
  await tx.send({ messages: [{ topic: txnTopic, partition: 0, value: 'a0' }] })
  await tx.abort()
  tx = await txp.beginTransaction()
  await tx.send({ messages: [{ topic: txnTopic, partition: 0, value: 'c2' }] })
  await tx.commit()
  await txp.close()

  const consumer = new Consumer({ ...base, clientId: 'brook-compat-plat-consumer', groupId: group, deserializers: stringDeserializers, maxWaitTime: 500, autocommit: false })
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false })
  const read = await take(stream, 12, 30000)
  result.consumed = read.map(m => `${m.partition}:${big(m.offset)}:${m.key}:${m.value}:${m.headers.get('idx')}`).sort()
  const next = new Map()
  for (const m of read) next.set(m.partition, Math.max(next.get(m.partition) ?? 0, big(m.offset) + 1))
  await consumer.commit({ offsets: [...next].map(([partition, offset]) => ({ topic, partition, offset: BigInt(offset), leaderEpoch: -1 })) })
  const described = (await admin.describeGroups({ groups: [group] })).get(group)
  result.group = { state: described.state, protocolType: described.protocolType, members: described.members.size }
  const offsets = await admin.listConsumerGroupOffsets({ groups: [group] })
  result.committed = offsets.flatMap(g => g.topics.flatMap(t => t.partitions.map(p => `${p.partitionIndex}:${big(p.committedOffset)}`))).sort()
  await stream.close()
  await consumer.close()

  const rc = new Consumer({ ...base, clientId: 'brook-compat-plat-rc', groupId: `${group}-rc`, deserializers: stringDeserializers, maxWaitTime: 500, autocommit: false, isolationLevel: FetchIsolationLevels.READ_COMMITTED })
  const rcStream = await rc.consume({ topics: [txnTopic], mode: 'earliest', isolationLevel: FetchIsolationLevels.READ_COMMITTED })
  result.readCommitted = (await take(rcStream, 3, 30000)).map(m => m.value).sort()
  const latest = await rc.listOffsets({ topics: [topic, txnTopic] })
  result.latest = Object.fromEntries([...latest].map(([t, ps]) => [t === topic ? 'topic' : 'txn', [...ps].map(big)]))
  await rcStream.close()
  await rc.close()

  await admin.deleteTopics({ topics: [topic, txnTopic] })
  await admin.close()
  console.log(JSON.stringify(result))
}

main().then(() => {
  clearTimeout(deadline)
  process.exit(0)
}, e => {
  console.error(e && e.stack ? e.stack : e)
  if (e && e.errors) for (const x of e.errors) console.error(' -', x && x.message, x && x.serverErrorMessage)
  process.exit(1)
})
