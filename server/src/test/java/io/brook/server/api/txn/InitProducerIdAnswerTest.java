package io.brook.server.api.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.brook.server.node.ClusterAdminException;
import io.brook.wire.message.InitProducerIdResponse;
import io.brook.wire.protocol.Errors;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** An idempotent producer's InitProducerId in cluster mode, when its node could not get a block of ids. */
class InitProducerIdAnswerTest {

    @Test
    void anIdIsAnsweredWithEpochZero() {
        InitProducerIdResponse r = InitProducerIdHandler.idempotentAnswer(42L, null);
        assertThat(r.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(r.producerId()).isEqualTo(42L);
        assertThat(r.producerEpoch()).isZero();
    }

    @Test
    void aNodeNotYetRegisteredAnswersAnErrorTheClientRetries() {
        // the controller's own error would put a Java producer in its fatal state
        InitProducerIdResponse r = InitProducerIdHandler.idempotentAnswer(null, new CompletionException(
                new ClusterAdminException(Errors.BROKER_ID_NOT_REGISTERED, "broker 2 is not registered yet")));
        assertThat(r.errorCode()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
        assertThat(r.producerId()).isEqualTo(-1L);
        assertThat(r.producerEpoch()).isEqualTo((short) -1);
    }

    @Test
    void aControllerThatDoesNotAnswerInTimeIsRetriedToo() {
        InitProducerIdResponse r = InitProducerIdHandler.idempotentAnswer(null, new TimeoutException());
        assertThat(r.errorCode()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS.code());
    }
}
