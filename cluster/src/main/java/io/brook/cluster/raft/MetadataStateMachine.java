package io.brook.cluster.raft;

import io.brook.cluster.metadata.CorruptMetadataException;
import io.brook.cluster.metadata.MetadataCodec;
import io.brook.cluster.metadata.MetadataImage;
import io.brook.cluster.metadata.MetadataRecord;
import io.brook.cluster.metadata.RejectedRecordException;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachine;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.LifeCycle;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Ratis state machine of the metadata quorum: each committed log entry is a batch of {@link
 * MetadataRecord}s, applied in order to this node's {@link MetadataImage}.
 *
 * <ul>
 *   <li><b>Before the log</b> ({@link #startTransaction}, on the leader): a request whose bytes are
 *       not a well-formed batch is refused and never enters the log.
 *   <li><b>Apply</b>: each record of a committed batch is applied on its own; a record the image
 *       rejects is skipped and counted ({@link #rejectedRecords()}), identically on every node.
 *       The reply to the appender says which records were applied ({@link AppendResult}). A
 *       committed entry that this node cannot decode (written by a newer version) stops the
 *       state machine: Ratis stops applying rather than let this node's image diverge.
 *   <li><b>Durable names</b>: Ratis forces its log files but not their directory; the state
 *       machine does, before it answers an entry whose segment's name may not be durable yet
 *       ({@link RaftDirectoryForcer}), and before every force of the log ({@link #flush}, the one
 *       part of Ratis' {@link StateMachine.DataApi} it implements); and, for the vote Ratis
 *       renames into the same directory, before a granted vote is sent ({@link
 *       #beforeVoteGranted}) and before this node leads a term it won ({@link #notifyLeaderChanged}).
 *   <li><b>Snapshots</b> ({@link #takeSnapshot}, on Ratis' trigger): the image's records go to
 *       {@code snapshot.<term>_<index>} in Ratis' {@link SimpleStateMachineStorage} with an MD5
 *       file; Ratis may then purge the log up to that index.
 *   <li><b>Recovery</b> ({@link #initialize}, {@link #reinitialize}): the newest snapshot is
 *       loaded, its MD5 and CRC checked, and Ratis replays the log after it. A follower whose log
 *       is behind the leader's purged log is sent the leader's snapshot: Ratis {@link #pause()}s
 *       the state machine, stores the file, and reinitialises it from that snapshot.
 *   <li><b>Queries</b> ({@link #query}): read-only client requests, which Ratis hands to the
 *       leader's state machine, carry the controller channel; the query handler given at
 *       construction answers them.
 * </ul>
 *
 * <p>Threading: Ratis applies entries on one thread; the image and the last applied term and
 * index change together under this object's lock, and {@link #read} takes the same lock.
 */
public final class MetadataStateMachine extends BaseStateMachine implements StateMachine.DataApi {
    private static final Logger LOG = LoggerFactory.getLogger(MetadataStateMachine.class);

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    /** Set by {@link #initialize}; read by the gRPC threads answering votes. */
    private volatile RaftDirectoryForcer directories;
    private final AtomicLong grantedVotes = new AtomicLong();
    private final AtomicLong logFlushes = new AtomicLong();
    private final AtomicLong termsLed = new AtomicLong();
    private MetadataImage image = new MetadataImage();
    private long rejectedRecords;
    private long loadedSnapshotIndex = -1;
    private final List<Runnable> applyListeners = new CopyOnWriteArrayList<>();
    private final Function<ByteBuffer, CompletableFuture<byte[]>> queryHandler;

    /** A state machine that answers no queries. */
    public MetadataStateMachine() {
        this(request -> CompletableFuture.failedFuture(new IllegalStateException("this node answers no queries")));
    }

    /**
     * @param queryHandler answers read-only client requests ({@link #query}): on the leader these are
     *     the controller channel's requests (docs/cluster.md, "How a node asks the controller")
     */
    public MetadataStateMachine(Function<ByteBuffer, CompletableFuture<byte[]>> queryHandler) {
        this.queryHandler = queryHandler;
    }

    /**
     * Runs {@code listener} after every applied entry and every snapshot loaded, once the image and
     * the applied index changed, outside this object's lock, on Ratis' apply thread.
     */
    public void addApplyListener(Runnable listener) {
        applyListeners.add(listener);
    }

    private void notifyApplied() {
        for (Runnable l : applyListeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                LOG.warn("A metadata apply listener failed", e);
            }
        }
    }

    /**
     * Ratis applies the entries that are not the state machine's (the leader's first entry of its
     * term, configuration changes) here: the applied index moves without {@link #applyTransaction},
     * and the listeners must hear of it too, or a node waiting to reach such an index (a decision
     * answered by a new leader before any new record) would wait until the next record.
     */
    @Override
    public void notifyTermIndexUpdated(long term, long index) {
        synchronized (this) {
            super.notifyTermIndexUpdated(term, index);
        }
        notifyApplied();
    }

    @Override
    public CompletableFuture<Message> query(Message request) {
        try {
            return queryHandler.apply(request.getContent().asReadOnlyByteBuffer())
                    .thenApply(bytes -> Message.valueOf(UnsafeByteOperations.unsafeWrap(bytes)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public void initialize(RaftServer server, RaftGroupId groupId, RaftStorage raftStorage) throws IOException {
        getLifeCycle().startAndTransition(() -> {
            super.initialize(server, groupId, raftStorage);
            storage.init(raftStorage);
            File root = raftStorage.getStorageDir().getRoot();
            directories = new RaftDirectoryForcer(raftStorage.getStorageDir().getCurrentDir().toPath(),
                    System::currentTimeMillis);
            directories.forceStorage(root.getAbsoluteFile().getParentFile().toPath());
            loadLatestSnapshot();
        });
    }

    /**
     * Ratis pauses the state machine before it installs a snapshot received from the leader and
     * then calls {@link #reinitialize()}; it checks that the state machine says PAUSED.
     */
    @Override
    public void pause() {
        getLifeCycle().transition(LifeCycle.State.PAUSING);
        getLifeCycle().transition(LifeCycle.State.PAUSED);
    }

    @Override
    public void reinitialize() throws IOException {
        loadLatestSnapshot();
        if (getLifeCycleState() == LifeCycle.State.PAUSED) {
            getLifeCycle().transition(LifeCycle.State.STARTING);
            getLifeCycle().transition(LifeCycle.State.RUNNING);
        }
    }

    private void loadLatestSnapshot() throws IOException {
        SingleFileSnapshotInfo snapshot = storage.loadLatestSnapshot();
        if (snapshot == null) {
            return;
        }
        Path file = snapshot.getFile().getPath();
        MD5Hash md5 = snapshot.getFile().getFileDigest();
        if (md5 != null) {
            MD5FileUtil.verifySavedMD5(file.toFile(), md5);
        }
        MetadataImage loaded = new MetadataImage();
        for (MetadataRecord r : MetadataSnapshotFile.read(file)) {
            try {
                loaded.apply(r);
            } catch (RejectedRecordException e) {
                throw new CorruptMetadataException("snapshot " + file + " does not rebuild an image: " + e.getMessage());
            }
        }
        synchronized (this) {
            image = loaded;
            setLastAppliedTermIndex(snapshot.getTermIndex());
            loadedSnapshotIndex = snapshot.getIndex();
        }
        notifyApplied();
        LOG.info("Loaded the metadata snapshot {} ({} brokers, {} topics)", file, loaded.brokers().size(),
                loaded.topics().size());
    }

    @Override
    public StateMachineStorage getStateMachineStorage() {
        return storage;
    }

    @Override
    public SingleFileSnapshotInfo getLatestSnapshot() {
        return storage.getLatestSnapshot();
    }

    @Override
    public TransactionContext startTransaction(RaftClientRequest request) throws IOException {
        TransactionContext trx = super.startTransaction(request);
        try {
            MetadataCodec.decodeBatch(request.getMessage().getContent().asReadOnlyByteBuffer());
        } catch (CorruptMetadataException e) {
            trx.setException(e);
        }
        return trx;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        ByteBuffer data = entry.getStateMachineLogEntry().getLogData().asReadOnlyByteBuffer();
        List<MetadataRecord> records = MetadataCodec.decodeBatch(data);
        TermIndex termIndex = TermIndex.valueOf(entry);
        List<Boolean> applied = new ArrayList<>(records.size());
        synchronized (this) {
            for (MetadataRecord r : records) {
                try {
                    image.apply(r);
                    applied.add(true);
                } catch (RejectedRecordException e) {
                    applied.add(false);
                    rejectedRecords++;
                    LOG.debug("Skipped metadata record {} at {}: {}", r, termIndex, e.getMessage());
                }
            }
            updateLastAppliedTermIndex(termIndex);
        }
        notifyApplied();
        directories.beforeAnswer();
        return CompletableFuture.completedFuture(new AppendResult(termIndex.getIndex(), applied).toMessage());
    }

    /**
     * Makes the vote Ratis has just written durable (its name, in the log's directory): called by
     * {@link DurableVoteInterceptor} before a granted vote is sent. Throws if the directory cannot
     * be forced, or before {@link #initialize}, so that the vote is not sent.
     */
    void beforeVoteGranted() {
        RaftDirectoryForcer d = directories;
        if (d == null) {
            throw new IllegalStateException("the state machine is not initialised yet");
        }
        d.beforeAnswer();
        grantedVotes.incrementAndGet();
    }

    /**
     * Makes the names in the log's directory durable before the log's flushed index moves: Ratis'
     * log worker calls this before each force of the log and waits for it before it counts the
     * entries as flushed. So a new segment's name (and a closed one's rename) is durable before a
     * leader counts its own copy of an entry towards the commit, and before a follower
     * acknowledges it. A failed force fails the future, and with it the log's force: the disk is
     * failing, and Ratis stops this server as for a failed force of the log itself.
     */
    @Override
    public CompletableFuture<Void> flush(long logIndex) {
        RaftDirectoryForcer d = directories;
        if (d == null) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            d.beforeAnswer();
        } catch (UncheckedIOException e) {
            return CompletableFuture.failedFuture(e);
        }
        logFlushes.incrementAndGet();
        return CompletableFuture.completedFuture(null);
    }

    /**
     * When this node has won an election: makes its vote for itself durable before it leads.
     * Ratis calls this while it makes the node leader, before the term's first entry is appended
     * or sent, so no follower holds an entry of a term whose leader could forget that it voted in
     * it (and, restarted, vote for another candidate of the same term). A failed force is logged;
     * it cannot stop the leadership from here, and the failing disk fails the log's next force.
     */
    @Override
    public void notifyLeaderChanged(RaftGroupMemberId member, RaftPeerId newLeader) {
        RaftDirectoryForcer d = directories;
        if (d == null || !member.getPeerId().equals(newLeader)) {
            return;
        }
        try {
            d.beforeAnswer();
            termsLed.incrementAndGet();
        } catch (UncheckedIOException e) {
            LOG.error("{} leads a term whose vote for itself may not be durable", member, e);
        }
    }

    /** How many granted votes (pre-votes included) were made durable before they were sent (for tests). */
    long grantedVotes() {
        return grantedVotes.get();
    }

    /** How many forces of the log had the log directory's names made durable first (for tests). */
    long logFlushes() {
        return logFlushes.get();
    }

    /** How many terms this node began to lead with its vote for itself made durable (for tests). */
    long termsLed() {
        return termsLed.get();
    }

    @Override
    public long takeSnapshot() throws IOException {
        List<MetadataRecord> records;
        TermIndex last;
        synchronized (this) {
            records = image.toRecords();
            last = getLastAppliedTermIndex();
        }
        if (last == null || last.getIndex() < 0) {
            return RaftLog.INVALID_LOG_INDEX;
        }
        File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        Files.createDirectories(file.toPath().getParent());
        MetadataSnapshotFile.write(file.toPath(), records);
        MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        RaftDirectoryForcer.force(file.toPath().getParent()); // Ratis renames the MD5 file into place
        storage.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), last));
        return last.getIndex();
    }

    /** Reads the image under the state machine's lock; {@code reader} must not keep references to it. */
    public synchronized <T> T read(Function<MetadataImage, T> reader) {
        return reader.apply(image);
    }

    /** The index of the last log entry applied to the image (or loaded with a snapshot), -1 before any. */
    public synchronized long lastAppliedIndex() {
        TermIndex last = getLastAppliedTermIndex();
        return last == null ? -1 : last.getIndex();
    }

    /** The log index of the snapshot the image was last loaded from, -1 if none. */
    public synchronized long loadedSnapshotIndex() {
        return loadedSnapshotIndex;
    }

    /** How many committed records this node's image rejected since it started. */
    public synchronized long rejectedRecords() {
        return rejectedRecords;
    }
}
