package io.brook.server.api;

import io.brook.server.api.TopicConfigChange.Failure;
import io.brook.server.node.BrokerContext;
import io.brook.wire.message.DescribeConfigsRequest.DescribeConfigsResource;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResourceResult;
import io.brook.wire.message.DescribeConfigsResponse.DescribeConfigsResult;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterConfigsResource;
import io.brook.wire.message.IncrementalAlterConfigsRequest.AlterableConfig;
import io.brook.wire.protocol.Errors;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * BROKER_LOGGER resources ({@code kafka-configs.sh --entity-type broker-loggers}): one config per
 * logger, its name the logger's and its value the level.
 *
 * <p><b>Describe</b> answers the level each logger runs at now, read through SLF4J (the most
 * detailed level it has enabled): the loggers asked for, or {@code root} and {@code io.brook}
 * when none is named (SLF4J has no list of the loggers that exist, which Kafka prints here).
 *
 * <p><b>Alter</b> is checked as Kafka checks it (the broker's own id; a known level; no append or
 * subtract; the root logger's level cannot be deleted), and {@code validateOnly} succeeds then;
 * but a change is refused with INVALID_CONFIG and a message saying why. Brook logs through SLF4J
 * and leaves the binding to the launcher, which uses slf4j-simple: its loggers take their level
 * when created (from {@code org.slf4j.simpleLogger.*} properties) and offer no way to change it,
 * so a level changes with a restart. The entries are therefore described read-only.
 */
final class BrokerLoggers {

    static final byte RESOURCE_BROKER_LOGGER = 8;
    /** Kafka's ConfigSource DYNAMIC_BROKER_LOGGER_CONFIG. */
    static final byte SOURCE_BROKER_LOGGER = 6;
    static final String ROOT = "root";
    /** The levels Kafka accepts (log4j's). */
    static final Set<String> LEVELS = Set.of("ALL", "TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF");

    private BrokerLoggers() {
    }

    static void describe(BrokerContext broker, DescribeConfigsResource res, DescribeConfigsResult r) {
        if (!res.resourceName().equals(Integer.toString(broker.nodeId()))) {
            r.errorCode(Errors.INVALID_REQUEST.code()).errorMessage("Unexpected broker id, expected "
                    + broker.nodeId() + ", but received " + res.resourceName());
            return;
        }
        List<String> names = res.configurationKeys() == null || res.configurationKeys().isEmpty()
                ? List.of(ROOT, "io.brook") : res.configurationKeys();
        List<DescribeConfigsResourceResult> out = new ArrayList<>();
        for (String name : names) {
            out.add(new DescribeConfigsResourceResult().name(name).value(level(name)).readOnly(true)
                    .isSensitive(false).configSource(SOURCE_BROKER_LOGGER));
        }
        r.configs(out);
    }

    /** The level {@code name} logs at: the most detailed one enabled, or OFF. */
    static String level(String name) {
        Logger l = LoggerFactory.getLogger(name.equals(ROOT) ? Logger.ROOT_LOGGER_NAME : name);
        if (l.isTraceEnabled()) return "TRACE";
        if (l.isDebugEnabled()) return "DEBUG";
        if (l.isInfoEnabled()) return "INFO";
        if (l.isWarnEnabled()) return "WARN";
        if (l.isErrorEnabled()) return "ERROR";
        return "OFF";
    }

    static Failure alter(BrokerContext broker, AlterConfigsResource res, boolean validateOnly) {
        if (!res.resourceName().equals(Integer.toString(broker.nodeId()))) {
            return new Failure(Errors.INVALID_REQUEST, "Unexpected broker id, expected " + broker.nodeId()
                    + ", but received " + res.resourceName());
        }
        for (AlterableConfig c : res.configs()) {
            switch (c.configOperation()) {
                case IncrementalAlterConfigsHandler.OP_SET -> {
                    if (c.value() == null || !LEVELS.contains(c.value().toUpperCase(Locale.ROOT))) {
                        return new Failure(Errors.INVALID_CONFIG, "Cannot set the log level of " + c.name() + " to "
                                + c.value() + " as it is not a supported log level. Valid log levels are "
                                + "ALL, TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF");
                    }
                }
                case IncrementalAlterConfigsHandler.OP_DELETE -> {
                    if (c.name().equals(ROOT)) {
                        return new Failure(Errors.INVALID_REQUEST, "Removing the log level of the root logger is not allowed");
                    }
                }
                case IncrementalAlterConfigsHandler.OP_APPEND, IncrementalAlterConfigsHandler.OP_SUBTRACT ->
                        { return new Failure(Errors.INVALID_REQUEST, "Operation " + c.configOperation()
                                + " is not allowed for the broker logger " + c.name()); }
                default -> { return new Failure(Errors.INVALID_REQUEST, "Unknown config operation " + c.configOperation()); }
            }
        }
        if (validateOnly || res.configs().isEmpty()) {
            return null;
        }
        return new Failure(Errors.INVALID_CONFIG, "Log levels cannot change at run time: Brook logs through "
                + "slf4j-simple, whose levels are fixed when a logger is created. Set "
                + "-Dorg.slf4j.simpleLogger.log.<logger>=<level> (or org.slf4j.simpleLogger.defaultLogLevel) "
                + "in BROOK_JVM_OPTS and restart");
    }
}
