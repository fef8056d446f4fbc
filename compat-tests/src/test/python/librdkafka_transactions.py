"""librdkafka's transactional producer, through Debian's confluent-kafka-python, against a broker.

Usage: librdkafka_transactions.py BOOTSTRAP SOURCE_TOPIC SINK_TOPIC TRANSACTIONAL_ID GROUP

SOURCE_TOPIC and SINK_TOPIC exist with two partitions each. The script writes ten records to the
source, reads them back in GROUP with read_committed, and copies them to the sink in
transactions that carry the group's offsets: the first five committed, one record aborted, the
other five committed. Then a second producer with the same transactional id fences the first,
whose next commit must fail. Each step prints one line; the caller checks what became visible
with its own client. Exits non-zero on any unexpected error.
"""
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition

boot, source, sink, txn_id, group = sys.argv[1:6]
TIMEOUT = 30


def say(*words):
    print(*words, flush=True)


plain = Producer({'bootstrap.servers': boot, 'enable.idempotence': True})
for i in range(10):
    plain.produce(source, key=f'k{i}', value=f's{i}', partition=i % 2)
if plain.flush(TIMEOUT) != 0:
    sys.exit('source records not delivered')
say('source 10')

consumer = Consumer({'bootstrap.servers': boot, 'group.id': group, 'auto.offset.reset': 'earliest',
                     'enable.auto.commit': False, 'isolation.level': 'read_committed'})
consumer.subscribe([source])
records = []
deadline = time.monotonic() + TIMEOUT
while len(records) < 10 and time.monotonic() < deadline:
    m = consumer.poll(0.5)
    if m is not None and m.error() is None:
        records.append(m)
say('consumed', len(records))
if len(records) != 10:
    sys.exit('did not read the source back')


def offsets(batch):
    ends = {}
    for m in batch:
        key = (m.topic(), m.partition())
        ends[key] = max(ends.get(key, 0), m.offset() + 1)
    return [TopicPartition(t, p, o) for (t, p), o in sorted(ends.items())]


def copy(producer, batch, read):
    """One transaction: the batch, transformed, and the group's offsets past every record read."""
    producer.begin_transaction()
    for m in batch:
        producer.produce(sink, key=m.key(), value=m.value() + b'-x', partition=m.partition())
    producer.send_offsets_to_transaction(offsets(read), consumer.consumer_group_metadata(), TIMEOUT)
    producer.commit_transaction(TIMEOUT)


first = Producer({'bootstrap.servers': boot, 'transactional.id': txn_id})
first.init_transactions(TIMEOUT)
copy(first, records[:5], records[:5])
say('committed 5')

first.begin_transaction()
first.produce(sink, value=b'aborted', partition=0)
first.flush(TIMEOUT)
first.abort_transaction(TIMEOUT)
say('aborted 1')

copy(first, records[5:], records)
say('committed 10')

second = Producer({'bootstrap.servers': boot, 'transactional.id': txn_id})
second.init_transactions(TIMEOUT)
say('second initialised')
try:
    first.begin_transaction()
    first.produce(sink, value=b'zombie', partition=1)
    first.commit_transaction(TIMEOUT)
    say('zombie committed')
except KafkaException as e:
    error = e.args[0]
    say('zombie refused', 'fatal' if error.fatal() else 'not-fatal',
        'fenced' if error.code() == KafkaError._FENCED else error.name())
consumer.close()
