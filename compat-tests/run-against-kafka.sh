#!/usr/bin/env bash
# Runs the whole compatibility suite against the reference Apache Kafka 4.x instead of the
# embedded Brook: starts a fresh single-node Kafka (kafka/kafka-local.sh, KRaft on loopback),
# runs the io.brook.compat tests (and the Flink example's, io.brook.examples.flink) with
# -Dbootstrap.servers pointing at it, and stops Kafka again,
# also when the build fails or is interrupted. Tests that need the embedded broker (restarts,
# broker settings, Brook-only behaviour) skip themselves and say why. Tests that need a secured
# broker (TLS, SASL, ACLs) start their own Kafka from the same jars, configured as they configure
# the embedded Brook (-Dreference.kafka.libs; see SecuredBroker). What differs between the two
# brokers is recorded in KAFKA-DIFFERENCES.md.
#
#   compat-tests/run-against-kafka.sh            # Kafka on 127.0.0.1:9192 (and 9193 for its controller)
#   KAFKA_PORT=9292 compat-tests/run-against-kafka.sh -o   # another port; extra arguments go to mvn
#
# The exit status is Maven's.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
port="${KAFKA_PORT:-9192}"

trap '"$here/kafka/kafka-local.sh" stop' EXIT
trap 'exit 130' INT TERM
bootstrap="$("$here/kafka/kafka-local.sh" start "$port")"
echo "reference Kafka at $bootstrap" >&2
libs="$("$here/kafka/kafka-local.sh" classpath)"
libs="${libs%/\*}"

cd "$root"
mvn -B -pl compat-tests,examples/flink -am verify -Dtest='io.brook.compat.**,io.brook.examples.flink.**' \
    -Dsurefire.failIfNoSpecifiedTests=false \
    -Dbootstrap.servers="$bootstrap" -Dreference.kafka.libs="$libs" "$@"
