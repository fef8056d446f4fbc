"""Drives a broker with kafka-python, a client written from the protocol in pure Python.

Two modes, each printing one "key value" line per fact for the Java test to check:

  plain BOOTSTRAP TOPIC GROUP
      creates TOPIC (3 partitions), produces 10 records with every codec (none, gzip, snappy,
      lz4, zstd), reads them back in GROUP and commits, then describes the group, its offsets
      and the partition ends, and deletes the topic.

  secure BOOTSTRAP CAFILE TOPIC GROUP
      over SASL_SSL (CAFILE: the broker's certificate): the SCRAM-SHA-512 user admin creates
      TOPIC; the SCRAM-SHA-256 user carol may not create topics; admin lets the PLAIN user alice
      write to TOPIC and carol read it in GROUP; alice produces three records and carol reads
      them; a wrong password is refused; the OAUTHBEARER user dave (an unsecured token, alg none,
      that kafka-python sends as it is given) may write to TOPIC once admin lets it.

Exits non-zero with a traceback when a step fails unexpectedly.
"""
import base64
import json
import sys
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import (ACL, ACLOperation, ACLPermissionType, NewTopic, ResourcePattern,
                         ResourceType)
from kafka.errors import KafkaError
from kafka.oauth.abstract import AbstractTokenProvider

CODECS = [None, "gzip", "snappy", "lz4", "zstd"]


def say(key, value):
    print("%s %s" % (key, value), flush=True)


def read(consumer, count, seconds=30):
    """Polls until COUNT records came or SECONDS passed; returns them."""
    records = []
    deadline = time.monotonic() + seconds
    while len(records) < count and time.monotonic() < deadline:
        for batch in consumer.poll(timeout_ms=500).values():
            records.extend(batch)
    return records


def create_topic_errors(admin, topic, partitions):
    """The error code the broker answered for the new topic (the client raises on a non-zero one)."""
    try:
        response = admin.create_topics([NewTopic(topic, partitions, 1)])
    except KafkaError as e:
        return str(e.errno)
    return ",".join(str(t[1]) for t in response.topic_errors)


def plain(bootstrap, topic, group):
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id="kafka-python-admin")
    say("create", create_topic_errors(admin, topic, 3))
    for codec in CODECS:
        producer = KafkaProducer(bootstrap_servers=bootstrap, compression_type=codec, acks="all",
                                 linger_ms=5)
        futures = [producer.send(topic, key=("k%d" % i).encode(),
                                 value=("%s-%d" % (codec or "none", i)).encode(),
                                 headers=[("codec", (codec or "none").encode())])
                   for i in range(10)]
        producer.flush()
        offsets = [f.get(timeout=30).offset for f in futures]
        producer.close()
        say("produced", "%s %d" % (codec or "none", len(offsets)))

    consumer = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                             auto_offset_reset="earliest", enable_auto_commit=False)
    records = read(consumer, 50)
    intact = sum(1 for r in records
                 if r.value.decode().startswith(dict(r.headers)["codec"].decode() + "-"))
    say("consumed", len(records))
    say("intact", intact)
    consumer.commit()
    consumer.close()

    say("group-state", admin.describe_consumer_groups([group])[0].state)
    committed = admin.list_consumer_group_offsets(group)
    say("committed", sum(o.offset for o in committed.values()))
    reader = KafkaConsumer(bootstrap_servers=bootstrap)
    partitions = [TopicPartition(topic, p) for p in range(3)]
    say("end-offsets", sum(reader.end_offsets(partitions).values()))
    reader.close()
    admin.delete_topics([topic])
    say("deleted", "yes")
    admin.close()


def secured(bootstrap, cafile, mechanism, user, password):
    return dict(bootstrap_servers=bootstrap, security_protocol="SASL_SSL", ssl_cafile=cafile,
                sasl_mechanism=mechanism, sasl_plain_username=user, sasl_plain_password=password)


class UnsecuredToken(AbstractTokenProvider):
    """An unsigned token whose sub is the user, valid for an hour, as Kafka's default validator takes it."""

    def __init__(self, user):
        super().__init__()
        self.user = user

    def token(self):
        now = int(time.time())

        def part(o):
            return base64.urlsafe_b64encode(json.dumps(o).encode()).decode().rstrip("=")
        return "%s.%s." % (part({"alg": "none"}), part({"sub": self.user, "iat": now, "exp": now + 3600}))


def secure(bootstrap, cafile, topic, group):
    admin = KafkaAdminClient(**secured(bootstrap, cafile, "SCRAM-SHA-512", "admin", "admin-secret"))
    say("admin-create", create_topic_errors(admin, topic, 1))

    carol_admin = KafkaAdminClient(**secured(bootstrap, cafile, "SCRAM-SHA-256", "carol", "carol-secret"))
    say("carol-create", create_topic_errors(carol_admin, topic + "-carol", 1))
    carol_admin.close()

    acls = [ACL("User:alice", "*", ACLOperation.WRITE, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.TOPIC, topic)),
            ACL("User:carol", "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.TOPIC, topic)),
            ACL("User:carol", "*", ACLOperation.READ, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.GROUP, group)),
            ACL("User:dave", "*", ACLOperation.WRITE, ACLPermissionType.ALLOW,
                ResourcePattern(ResourceType.TOPIC, topic))]
    say("acls-created", len(admin.create_acls(acls)["succeeded"]))

    producer = KafkaProducer(acks="all", **secured(bootstrap, cafile, "PLAIN", "alice", "alice-secret"))
    offsets = [producer.send(topic, ("r%d" % i).encode()).get(timeout=30).offset for i in range(3)]
    producer.close()
    say("alice-offsets", ",".join(str(o) for o in offsets))

    consumer = KafkaConsumer(topic, group_id=group, auto_offset_reset="earliest",
                             **secured(bootstrap, cafile, "SCRAM-SHA-256", "carol", "carol-secret"))
    say("carol-read", ",".join(r.value.decode() for r in read(consumer, 3)))
    consumer.commit()
    consumer.close()

    dave = KafkaProducer(acks="all", bootstrap_servers=bootstrap, security_protocol="SASL_SSL", ssl_cafile=cafile,
                         sasl_mechanism="OAUTHBEARER", sasl_oauth_token_provider=UnsecuredToken("dave"))
    say("dave-offset", dave.send(topic, b"from-dave").get(timeout=30).offset)
    dave.close()
    admin.close()

    try:
        KafkaAdminClient(request_timeout_ms=10000,
                         **secured(bootstrap, cafile, "SCRAM-SHA-512", "admin", "wrong"))
        say("wrong-password", "accepted")
    except Exception as e:  # the client reports a failed login as having no broker to talk to
        say("wrong-password", "refused " + type(e).__name__)


def main():
    if sys.argv[1] == "plain":
        plain(*sys.argv[2:5])
    elif sys.argv[1] == "secure":
        secure(*sys.argv[2:6])
    else:
        sys.exit("unknown mode " + sys.argv[1])


if __name__ == "__main__":
    main()
