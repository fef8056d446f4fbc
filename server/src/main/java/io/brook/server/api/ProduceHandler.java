package io.brook.server.api;

import io.brook.coordinator.txn.TransactionCoordinator;
import io.brook.server.node.TxnPeers;
import io.brook.server.metrics.BrokerMetrics;
import io.brook.server.metrics.TopicMetrics;
import io.brook.server.api.security.ProduceTransactionalId;
import io.brook.server.network.ApiHandler;
import io.brook.server.network.RequestContext;
import io.brook.server.node.BrokerContext;
import io.brook.server.security.quota.ClientQuotas;
import io.brook.server.time.Timer;
import io.brook.server.topic.DistinctPartitions;
import io.brook.server.topic.Topic;
import io.brook.server.topic.TopicIds;
import io.brook.server.topic.Topics;
import io.brook.storage.AppendResult;
import io.brook.storage.Log;
import io.brook.storage.RecordError;
import io.brook.wire.message.ProduceRequest;
import io.brook.wire.message.ProduceRequest.PartitionProduceData;
import io.brook.wire.message.ProduceRequest.TopicProduceData;
import io.brook.wire.message.ProduceResponse;
import io.brook.wire.message.ProduceResponse.BatchIndexAndErrorMessage;
import io.brook.wire.message.ProduceResponse.PartitionProduceResponse;
import io.brook.wire.message.ProduceResponse.TopicProduceResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.BufferRecords;
import io.brook.wire.protocol.Errors;
import io.brook.wire.protocol.Records;
import io.brook.wire.record.Compression;
import io.brook.wire.record.RecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Produce (key 0). Each partition's records must be exactly one valid magic-v2 batch; its header
 * is checked here (CRC, codec, counts) and the storage checks every record (framing, count,
 * offset deltas, timestamps, keys of compacted topics), the idempotence rules and
 * {@code max.message.bytes} before it appends anything. Errors are per partition; the records that
 * fail are named in {@code record_errors} (v8+).
 *
 * <p>When the answer goes out: {@code acks=1} right after the write; {@code acks=all} (-1) once
 * the storage's group commit made every appended batch durable (immediately when fsync-on-ack
 * is off), or at {@code timeout_ms} with REQUEST_TIMED_OUT for what is still waiting;
 * {@code acks=0} never — but a failed partition then closes the connection, as Kafka does, since
 * the client would otherwise never learn of it. Consumers waiting in a long-poll fetch are woken
 * by the storage's high-watermark events, not from here.
 *
 * <p>From v13 topics are named by id: ids are resolved to names on arrival ({@link TopicIds});
 * an id that names no topic (the zero id included) is answered UNKNOWN_TOPIC_ID. v10 adds the
 * leader hints of KIP-951, added to partitions answered NOT_LEADER_OR_FOLLOWER (by
 * {@link io.brook.server.node.LeaderHints}; a single node leads every partition, so none of its
 * own answers carries that error today), v11 the TRANSACTION_ABORTABLE error and v12 the implicit
 * partition registration of transactions V2 (KIP-890 part 2): the partitions of a transactional
 * v12+ request that are not yet part of the producer's transaction are added to it first
 * ({@link ImplicitTxnPartitions}), and the request is appended once that is durable.
 *
 * <p>A transactional batch is appended only into a partition of its producer's ongoing
 * transaction ({@link #verifyTransactional}); a refused one is answered with the cause the
 * coordinator gives ({@link TxnRefusals}), as Kafka's verification answers.
 *
 * <p>v0–2 never reach this handler: they are advertised for old librdkafka's feature checks and
 * close the connection (the API table accepts only v3+).
 */
final class ProduceHandler implements ApiHandler<ProduceRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(ProduceHandler.class);

    /** Produce v7 is the first to allow zstd (KIP-110). */
    static final short ZSTD_MIN_VERSION = 7;

    /** Produce v13 names topics by id only (KIP-516); see {@link TopicIds}. */
    static final short TOPIC_IDS_MIN_VERSION = 13;

    private final BrokerContext broker;
    private final ClientQuotas quotas;
    private final TxnProduceOrder order = new TxnProduceOrder();
    private final AddingSequences addingSequences = new AddingSequences();

    ProduceHandler(BrokerContext broker) {
        this(broker, ClientQuotas.none());
    }

    ProduceHandler(BrokerContext broker, ClientQuotas quotas) {
        this.broker = broker;
        this.quotas = quotas;
    }

    /**
     * Appends go to the page cache under the log's short lock and durability is awaited through a
     * callback, so a request of uncompressed batches runs on the event loop: checking their
     * records costs a walk over bytes that are there. A compressed batch must be decompressed to
     * be checked, up to {@link RecordBatch#DEFAULT_MAX_DECOMPRESSED_BYTES} from a few kilobytes,
     * which would stall every connection of the loop for as long: such a request goes to the
     * I/O pool, where Kafka runs every request.
     */
    @Override
    public boolean runsOnEventLoop(ProduceRequest request) {
        List<TopicProduceData> topicData = request.topicData();
        for (int t = 0; t < topicData.size(); t++) {
            List<PartitionProduceData> parts = topicData.get(t).partitionData();
            for (int p = 0; p < parts.size(); p++) {
                if (parts.get(p).records() instanceof BufferRecords records && RecordBatch.startsCompressed(records)) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public void handle(RequestContext ctx, ProduceRequest request) {
        short version = ctx.apiVersion();
        short acks = request.acks();
        if (acks != 0 && acks != 1 && acks != -1) {
            ctx.respond(request.errorResponse(version, Errors.INVALID_REQUIRED_ACKS));
            return;
        }
        if (request.transactionalId() == null && ProduceTransactionalId.refusal(request, null) != null) {
            // transactional records without their transactional id (with an authorizer, AclChecks
            // refused the request already)
            if (acks == 0) {
                ctx.closeConnection("acks=0 produce of transactional records without a transactional id");
            } else {
                ctx.respond(request.errorResponse(version, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
            }
            return;
        }
        Topics topics = broker.topics();
        if (version >= TOPIC_IDS_MIN_VERSION) {
            for (TopicProduceData td : request.topicData()) {
                td.name(TopicIds.nameOf(topics, td.topicId()));
            }
        }
        List<TopicProduceData> topicData = DistinctPartitions.lastOfEach(request.topicData(), TopicProduceData::name,
                TopicProduceData::partitionData, PartitionProduceData::index,
                (t, parts) -> new TopicProduceData().name(t.name()).topicId(t.topicId()).partitionData(parts));
        TransactionCoordinator txns = broker.transactions();
        TxnPartitionAccess access = null;
        boolean remote = false;
        TxnPeers peers = broker.cluster() == null ? null : broker.cluster().txnPeers();
        if (request.transactionalId() != null && peers != null) {
            int coordinator = peers.coordinatorOf(request.transactionalId());
            if (coordinator != peers.nodeId()) {
                // docs/cluster.md, section 7: the coordinator is another node (or none now)
                remote = true;
                access = TxnPartitionAccess.remote(peers, coordinator,
                        version < ImplicitTxnPartitions.PRODUCE_V2_MIN_VERSION, topics);
            }
        }
        if (!remote && version >= ImplicitTxnPartitions.PRODUCE_V2_MIN_VERSION && request.transactionalId() != null
                && txns != null) {
            access = TxnPartitionAccess.local(txns);
        }
        if (access != null) {
            // the request's frame is released when its connection closes: what is appended
            // after a wait must not read from it
            boolean[] detached = {false};
            TxnPartitionAccess a = access;
            boolean r = remote;
            order.run(request.transactionalId(), ctx.nonBlockingExecutor(), () -> {
                detachRecords(topicData);
                detached[0] = true;
            }, () -> appendV2(ctx, request, version, topicData, a, r, topics, detached[0]));
            return;
        }
        appendAll(ctx, request, version, topicData, Map.of(), null, null);
    }

    /**
     * A transactional Produce v12+, or any transactional Produce whose coordinator is another node
     * ({@code remote}): adds (or verifies) the partitions not yet in the transaction, then appends.
     *
     * @return completes once appended when the request waited for the coordinator, else null
     */
    private CompletableFuture<?> appendV2(RequestContext ctx, ProduceRequest request, short version,
            List<TopicProduceData> topicData, TxnPartitionAccess txns, boolean remote, Topics topics, boolean detached) {
        try {
            CompletableFuture<Map<ImplicitTxnPartitions.TopicPartition, Errors>> added =
                    ImplicitTxnPartitions.addMissing(txns, request.transactionalId(), topicData, topics,
                            addingSequences);
            if (added == null) {
                appendAll(ctx, request, version, topicData, Map.of(), request.transactionalId(), remote ? txns : null);
                return null;
            }
            if (!detached) {
                detachRecords(topicData);
            }
            CompletableFuture<Void> appended = new CompletableFuture<>();
            added.whenComplete((refused, x) -> ctx.nonBlockingExecutor().execute(() -> {
                try {
                    appendAll(ctx, request, version, topicData, refused == null ? Map.of() : refused,
                            request.transactionalId(), remote ? txns : null);
                } catch (RuntimeException e) {
                    ctx.fail(e);
                } finally {
                    appended.complete(null);
                }
            }));
            return appended;
        } catch (RuntimeException e) {
            ctx.fail(e);
            return null;
        }
    }

    /** Replaces each partition's records, a view of the request's frame, with a copy on the heap. */
    private static void detachRecords(List<TopicProduceData> topicData) {
        for (TopicProduceData td : topicData) {
            for (PartitionProduceData pd : td.partitionData()) {
                if (pd.records() instanceof BufferRecords records) {
                    ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
                    copy.put(records.buffer().duplicate()).flip();
                    pd.records(BufferRecords.wrap(copy));
                }
            }
        }
    }

    /**
     * Appends each partition's batch and answers; a partition {@code asked} about with an error (a
     * transactional partition that could not be added to its transaction or verified) is answered
     * with it instead. {@code v2TransactionalId}: the transactional id of a request that asked the
     * coordinator, whose appended partitions need their lowest adding sequence no more
     * ({@link AddingSequences}); else null. {@code remote}: how a coordinator on another node is
     * asked, null when it runs here; a partition it answered NONE for is in the transaction.
     */
    private void appendAll(RequestContext ctx, ProduceRequest request, short version, List<TopicProduceData> topicData,
            Map<ImplicitTxnPartitions.TopicPartition, Errors> asked, String v2TransactionalId,
            TxnPartitionAccess remote) {
        short acks = request.acks();
        Topics topics = broker.topics();
        boolean byId = version >= TOPIC_IDS_MIN_VERSION;
        RecordBatch batch = new RecordBatch();
        List<TopicProduceResponse> responses = new ArrayList<>(topicData.size());
        List<PendingDurability> durable = acks == -1 ? new ArrayList<>() : null;
        TxnRefusals refusals = null;
        boolean anyError = false;
        for (TopicProduceData td : topicData) {
            Topic topic = topics.get(td.name());
            List<PartitionProduceResponse> parts = new ArrayList<>(td.partitionData().size());
            for (PartitionProduceData pd : td.partitionData()) {
                PartitionProduceResponse r = new PartitionProduceResponse().index(pd.index());
                Log log = topic == null || pd.index() < 0 || pd.index() >= topic.partitions() ? null
                        : topics.log(td.name(), pd.index());
                Errors idError = byId ? TopicIds.check(topics, topic, td.topicId()) : Errors.NONE;
                Errors lead = topic == null || pd.index() < 0 || pd.index() >= topic.partitions() ? Errors.NONE
                        : broker.leadership().check(td.name(), pd.index(), -1);
                if (idError != Errors.NONE) {
                    fail(r, idError, "This server has no topic with id " + td.topicId() + ".");
                } else if (lead != Errors.NONE) {
                    fail(r, lead, "This server is not the leader for that topic-partition.");
                } else if (log == null) {
                    fail(r, Errors.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.");
                } else if (topic.isInternal()) {
                    fail(r, Errors.INVALID_TOPIC_EXCEPTION, "Cannot append to internal topic " + td.name());
                } else if (!asked.isEmpty() && asked.getOrDefault(new ImplicitTxnPartitions.TopicPartition(td.name(),
                        pd.index()), Errors.NONE) != Errors.NONE) {
                    Errors e = asked.get(new ImplicitTxnPartitions.TopicPartition(td.name(), pd.index()));
                    fail(r, version < ImplicitTxnPartitions.PRODUCE_V2_MIN_VERSION
                            ? TxnRefusals.forVerification(e, version) : e,
                            "The partition could not be added to the producer's transaction.");
                } else {
                    boolean confirmed = asked.get(new ImplicitTxnPartitions.TopicPartition(td.name(), pd.index()))
                            == Errors.NONE;
                    if (append(log, broker.leadership().leaderEpoch(td.name(), pd.index()), pd.records(), batch,
                            version, r, durable, remote, confirmed)) {
                        if (refusals == null) {
                            refusals = new TxnRefusals();
                        }
                        refusals.add(r, td.name(), pd.index(), batch.producerId(), batch.producerEpoch());
                    }
                    if (v2TransactionalId != null && r.errorCode() == Errors.NONE.code() && batch.isTransactional()) {
                        addingSequences.appended(v2TransactionalId, new ImplicitTxnPartitions.TopicPartition(td.name(),
                                pd.index()));
                    }
                }
                meter(broker.metrics(), td.name(), topic != null, pd.records(), batch, r);
                anyError |= r.errorCode() != Errors.NONE.code();
                parts.add(r);
            }
            responses.add(new TopicProduceResponse().name(td.name()).topicId(td.topicId()).partitionResponses(parts));
        }
        ProduceResponse response = new ProduceResponse().responses(responses);
        if (refusals != null && acks != 0) {
            // the coordinator says why (a rare path: only a refused request asks)
            boolean errors = anyError;
            refusals.explain(broker.transactions(), request.transactionalId(), version).whenComplete((v, x) ->
                    ctx.nonBlockingExecutor().execute(() -> answer(ctx, request, version, response, durable, errors)));
            return;
        }
        answer(ctx, request, version, response, durable, anyError);
    }

    /** Throttles, adds the leader hints of a failed request, and answers as {@code acks} says. */
    private void answer(RequestContext ctx, ProduceRequest request, short version, ProduceResponse response,
            List<PendingDurability> durable, boolean anyError) {
        short acks = request.acks();
        int throttleMs = quotas.produced(ctx.session().principal(), ctx.clientId(), ctx.requestBytes());
        response.throttleTimeMs(throttleMs);
        ctx.throttle(throttleMs);
        if (anyError) {
            broker.leaderHints().addTo(response, version, ctx.session().listenerName());
        }
        if (acks == 0) {
            if (anyError) {
                ctx.closeConnection("acks=0 produce failed: " + firstError(response));
            } else {
                ctx.noResponse();
            }
        } else if (durable == null || durable.isEmpty()) {
            ctx.respond(response);
        } else {
            awaitDurable(ctx, response, durable, broker, request.timeoutMs());
        }
    }

    /**
     * Answers once every appended partition is durable, or at {@code timeout_ms}, whichever
     * comes first: partitions still waiting then get REQUEST_TIMED_OUT (the data may still become
     * durable; the client retries, and idempotence makes the retry a duplicate), partitions whose
     * log failed meanwhile get KAFKA_STORAGE_ERROR.
     */
    private static void awaitDurable(RequestContext ctx, ProduceResponse response,
            List<PendingDurability> pending, BrokerContext broker, int timeoutMs) {
        AtomicBoolean answered = new AtomicBoolean();
        Runnable answer = () -> {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            for (PendingDurability p : pending) {
                if (!p.future.isDone()) {
                    fail(p.partition, Errors.REQUEST_TIMED_OUT, "The data was not durable within timeout_ms.");
                } else if (p.future.isCompletedExceptionally()) {
                    fail(p.partition, Errors.KAFKA_STORAGE_ERROR, "The log failed before the data was durable.");
                }
            }
            ctx.respond(response);
        };
        Timer.Scheduled deadline = broker.timer().schedule(Math.max(1, timeoutMs), answer);
        CompletableFuture<?>[] all = new CompletableFuture<?>[pending.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = pending.get(i).future;
        }
        CompletableFuture.allOf(all).whenComplete((ok, failure) -> {
            deadline.cancel();
            answer.run();
        });
    }

    /**
     * Kafka's BrokerTopicMetrics for one partition of the request: records and bytes in, or its
     * error (a topic that does not exist counts broker-wide only).
     * {@code batch} still wraps the partition's batch when it was appended.
     */
    private static void meter(BrokerMetrics metrics, String topicName, boolean exists, Records records,
            RecordBatch batch, PartitionProduceResponse r) {
        TopicMetrics m = exists ? metrics.topic(topicName) : metrics.allTopics();
        int bytes = records == null ? 0 : records.sizeInBytes();
        if (r.errorCode() == Errors.NONE.code()) {
            m.produced(batch.recordsCount(), bytes);
        } else {
            m.produceFailed(Errors.forCode(r.errorCode()), bytes);
        }
    }

    /** A partition's answer and the durability it waits for. */
    record PendingDurability(PartitionProduceResponse partition, CompletableFuture<Void> future) {
    }

    /**
     * Appends as the leader at {@code leaderEpoch}, which the batch is stamped with (0 on a single
     * node).
     *
     * @return whether this node's coordinator refused the transactional batch because its partition
     *     is not in an ongoing transaction of the producer ({@link TxnRefusals} asks it why)
     */
    private boolean append(Log log, int leaderEpoch, Records records, RecordBatch batch, short version,
            PartitionProduceResponse r, List<PendingDurability> durable, TxnPartitionAccess remote, boolean confirmed) {
        if (!(records instanceof BufferRecords buffered) || records.sizeInBytes() == 0) {
            fail(r, Errors.INVALID_RECORD, "The produce request has no records for this partition.");
            return false;
        }
        ByteBuffer buf = buffered.buffer();
        if (buf.remaining() < RecordBatch.HEADER_SIZE) {
            fail(r, Errors.CORRUPT_MESSAGE, "The records are shorter than a record batch header.");
            return false;
        }
        batch.wrap(buf, buf.position());
        Errors invalid = batch.validateClientBatch(buf.remaining());
        if (invalid != Errors.NONE) {
            fail(r, invalid, "Invalid record batch: " + invalid);
            return false;
        }
        if (batch.sizeInBytes() != buf.remaining()) {
            fail(r, Errors.INVALID_RECORD, "A produce request must hold exactly one record batch per partition.");
            return false;
        }
        if (batch.isTransactional()) {
            Errors verified = remote == null ? verifyTransactional(batch, log)
                    : confirmed || remote.inTransaction(batch.producerId(), batch.producerEpoch(), log.topic(),
                            log.partition()) ? Errors.NONE : Errors.INVALID_TXN_STATE;
            if (verified != Errors.NONE) {
                boolean notInTransaction = verified == Errors.INVALID_TXN_STATE;
                if (notInTransaction) {
                    // often fatal to the producer: logged so that its failure can be matched with the cause
                    LOG.info("Transactional batch of producer {} epoch {} refused in {}-{}:"
                            + " no ongoing transaction of it includes the partition ({} coordinator)",
                            batch.producerId(), batch.producerEpoch(), log.topic(), log.partition(),
                            remote == null ? "local" : "remote");
                }
                fail(r, notInTransaction && remote != null ? TxnRefusals.forVerification(verified, version) : verified,
                        "Producer " + batch.producerId() + " epoch " + batch.producerEpoch()
                        + " has no ongoing transaction that this partition was added to.");
                return notInTransaction && remote == null && broker.transactions() != null;
            }
        }
        if (batch.compression() == Compression.ZSTD && version < ZSTD_MIN_VERSION) {
            fail(r, Errors.UNSUPPORTED_COMPRESSION_TYPE, "zstd needs Produce v" + ZSTD_MIN_VERSION + " or later.");
            return false;
        }
        AppendResult result = log.append(buf, leaderEpoch);
        if (result.error() != Errors.NONE) {
            fail(r, result.error(), result.errorMessage());
            r.logStartOffset(result.logStartOffset());
            if (!result.recordErrors().isEmpty()) {
                // v8+: which records of the batch failed, as Kafka reports record validation errors
                List<BatchIndexAndErrorMessage> named = new ArrayList<>(result.recordErrors().size());
                for (RecordError e : result.recordErrors()) {
                    named.add(new BatchIndexAndErrorMessage().batchIndex(e.batchIndex())
                            .batchIndexErrorMessage(e.message()));
                }
                r.recordErrors(named);
            }
            return false;
        }
        r.errorCode(Errors.NONE.code()).baseOffset(result.baseOffset()).logAppendTimeMs(result.logAppendTimeMs())
                .logStartOffset(result.logStartOffset());
        if (durable != null) {
            awaitOrAnswer(r, log.whenDurable(result.lastOffset() + 1), durable);
        }
        return false;
    }

    /**
     * An acks=all partition whose append succeeded: waits for {@code done} unless it completed
     * already. One that already failed (the log failed or closed between the append and the
     * question) is answered KAFKA_STORAGE_ERROR at once: its data is not durable, so NONE would
     * be a lie.
     */
    static void awaitOrAnswer(PartitionProduceResponse r, CompletableFuture<Void> done,
            List<PendingDurability> durable) {
        if (done.isCompletedExceptionally()) {
            fail(r, Errors.KAFKA_STORAGE_ERROR, "The log failed before the data was durable.");
        } else if (!done.isDone()) {
            durable.add(new PendingDurability(r, done));
        }
    }

    /**
     * A transactional batch is accepted only into a partition its producer added to its ongoing
     * transaction, at the transaction's epoch (the verification of KIP-890 part 1, asked of the
     * local coordinator): a zombie's late write cannot open a transaction that nothing would ever
     * close and that would pin the last stable offset. A producer fenced by a newer epoch gets
     * INVALID_PRODUCER_EPOCH, any other INVALID_TXN_STATE (NOT_ENOUGH_REPLICAS while
     * {@code __transaction_state} loads).
     */
    private Errors verifyTransactional(RecordBatch batch, Log log) {
        TransactionCoordinator txns = broker.transactions();
        if (txns == null) {
            return Errors.INVALID_TXN_STATE;
        }
        Errors e = txns.verifyAppend(batch.producerId(), batch.producerEpoch(), log.topic(), log.partition());
        // while __transaction_state loads the producer may be one not loaded yet: Kafka's answer to a
        // verification the coordinator cannot make yet, retriable
        return e != Errors.NONE && txns.loading() ? Errors.NOT_ENOUGH_REPLICAS : e;
    }

    private static void fail(PartitionProduceResponse r, Errors error, String message) {
        r.errorCode(error.code()).baseOffset(-1).logAppendTimeMs(-1).logStartOffset(-1).errorMessage(message);
    }

    private static String firstError(ProduceResponse response) {
        for (TopicProduceResponse t : response.responses()) {
            for (PartitionProduceResponse p : t.partitionResponses()) {
                if (p.errorCode() != Errors.NONE.code()) {
                    return t.name() + "-" + p.index() + ": " + Errors.forCode(p.errorCode()) + " " + p.errorMessage();
                }
            }
        }
        return "none";
    }
}
