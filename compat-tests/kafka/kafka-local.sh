#!/usr/bin/env bash
# Starts or stops a single-node Apache Kafka (KRaft, no ZooKeeper, no Docker) on loopback, built
# from the kafka_2.13 artifact on Maven Central. The compatibility suite and the benchmarks use it
# as the reference broker: a test that fails against it encodes the wrong behaviour.
#
#   kafka-local.sh start [PORT]   # default 9192; prints the bootstrap address
#   kafka-local.sh stop
#   kafka-local.sh classpath      # prints the classpath (for kafka-tools such as ProducerPerformance)
#
# State lives in ${KAFKA_LOCAL_DIR:-target/reference-kafka} below this folder.
# With KAFKA_LOCAL_SSL_PORT, KAFKA_LOCAL_SSL_KEYSTORE (PKCS12) and KAFKA_LOCAL_SSL_PASSWORD set,
# start adds an SSL listener on 127.0.0.1:$KAFKA_LOCAL_SSL_PORT with that key store. With
# KAFKA_LOCAL_SASL_SCRAM=NAME:PASSWORD as well, that listener is SASL_SSL with SCRAM-SHA-512, and
# the user is created by kafka-storage format --add-scram before the broker starts.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="${KAFKA_LOCAL_DIR:-$here/target/reference-kafka}"
libs="$work/libs"

# the Kafka version of pom.xml; libraries resolved for another version are replaced
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")"

resolve() {
  if [ ! -f "$libs/.complete-$version" ]; then
    rm -rf "$libs" && mkdir -p "$libs"
    mvn -B -q -f "$here/pom.xml" dependency:copy-dependencies -DoutputDirectory="$libs" >&2
    touch "$libs/.complete-$version"
  fi
}

classpath() { resolve; echo "$libs/*"; }

start() {
  local port="${1:-9192}" controller=$(( ${1:-9192} + 1 ))
  resolve
  mkdir -p "$work"
  if [ -f "$work/pid" ] && kill -0 "$(cat "$work/pid")" 2>/dev/null; then
    echo "already running (pid $(cat "$work/pid"))" >&2; exit 1
  fi
  rm -rf "$work/data" && mkdir -p "$work/data"
  local ssl_listener="" ssl_settings="" add_scram=()
  if [ -n "${KAFKA_LOCAL_SSL_PORT:-}" ]; then
    ssl_listener=",SSL://127.0.0.1:$KAFKA_LOCAL_SSL_PORT"
    ssl_settings="ssl.keystore.location=$KAFKA_LOCAL_SSL_KEYSTORE
ssl.keystore.type=PKCS12
ssl.keystore.password=$KAFKA_LOCAL_SSL_PASSWORD"
    if [ -n "${KAFKA_LOCAL_SASL_SCRAM:-}" ]; then
      ssl_listener=",SASL_SSL://127.0.0.1:$KAFKA_LOCAL_SSL_PORT"
      ssl_settings="$ssl_settings
sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
      add_scram=(--add-scram "SCRAM-SHA-512=[name=${KAFKA_LOCAL_SASL_SCRAM%%:*},password=${KAFKA_LOCAL_SASL_SCRAM#*:}]")
    fi
  fi
  cat > "$work/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller$ssl_listener
advertised.listeners=PLAINTEXT://127.0.0.1:$port$ssl_listener
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,SSL:SSL,SASL_SSL:SASL_SSL
$ssl_settings
inter.broker.listener.name=PLAINTEXT
log.dirs=$work/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
group.consumer.min.heartbeat.interval.ms=500
group.consumer.heartbeat.interval.ms=500
PROPS
  cat > "$work/log4j2.yaml" <<'LOG'
Configuration:
  Appenders:
    Console:
      name: STDOUT
      PatternLayout:
        pattern: "[%d] %p %m (%c)%n"
  Loggers:
    Root:
      level: WARN
      AppenderRef:
        - ref: STDOUT
LOG
  local java_opts=(-Xms1g -Xmx1g -Dlog4j2.configurationFile="$work/log4j2.yaml" -cp "$libs/*")
  java "${java_opts[@]}" kafka.tools.StorageTool format -t "$(java "${java_opts[@]}" kafka.tools.StorageTool random-uuid)" \
       -c "$work/server.properties" --standalone ${add_scram[@]+"${add_scram[@]}"} >/dev/null 2>&1 \
    || java "${java_opts[@]}" kafka.tools.StorageTool format -t "$(java "${java_opts[@]}" kafka.tools.StorageTool random-uuid)" \
       -c "$work/server.properties" ${add_scram[@]+"${add_scram[@]}"} >/dev/null
  nohup java "${java_opts[@]}" kafka.Kafka "$work/server.properties" >"$work/kafka.log" 2>&1 &
  echo $! > "$work/pid"
  local deadline=$(( $(date +%s) + 60 ))
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$(cat "$work/pid")" 2>/dev/null; then
      echo "Kafka exited during start-up; see $work/kafka.log" >&2; tail -20 "$work/kafka.log" >&2; exit 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then echo "Kafka did not open port $port in 60 s" >&2; exit 1; fi
    sleep 0.2
  done
  echo "127.0.0.1:$port"
}

stop() {
  if [ -f "$work/pid" ]; then
    local pid; pid="$(cat "$work/pid")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$work/pid"
  fi
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) stop ;;
  classpath) classpath ;;
  *) echo "usage: $0 start [PORT] | stop | classpath" >&2; exit 2 ;;
esac
