package io.brook.coordinator.group;

import io.brook.wire.protocol.Errors;

/** The answer to a SyncGroup: the member's assignment, or an error with an empty assignment. */
record SyncResult(Errors error, String protocolType, String protocolName, byte[] assignment) {
    static SyncResult error(Errors e) {
        return new SyncResult(e, null, null, GroupMember.EMPTY_BYTES);
    }
}
