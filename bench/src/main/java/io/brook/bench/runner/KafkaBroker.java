package io.brook.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The reference Apache Kafka, started by {@code compat-tests/kafka/kafka-local.sh start PORT}
 * (KRaft single node, its own JVM, Kafka's default settings). The script formats the storage,
 * launches {@code kafka.Kafka} in the background, writes its pid and waits for the port.
 */
final class KafkaBroker implements Broker {
    private final Path script;
    private final Path workDir;
    private final Path logFile;
    private final String settings;

    KafkaBroker(Path script, Path workDir, Path logFile, String settings) {
        this.script = script;
        this.workDir = workDir;
        this.logFile = logFile;
        this.settings = settings;
    }

    @Override
    public String label() {
        return "kafka";
    }

    @Override
    public String settings() {
        return settings;
    }

    @Override
    public void deleteData() {
        Files2.deleteTree(workDir.resolve("data"));
    }

    private ProcessBuilder script(String... args) {
        return script(Map.of(), args);
    }

    private ProcessBuilder script(Map<String, String> env, String... args) {
        String[] cmd = new String[args.length + 2];
        cmd[0] = "bash";
        cmd[1] = script.toString();
        System.arraycopy(args, 0, cmd, 2, args.length);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        pb.environment().put("KAFKA_LOCAL_DIR", workDir.toString());
        pb.environment().putAll(env);
        return pb;
    }

    @Override
    public Running launch(int port) throws IOException {
        return launch(port, Map.of());
    }

    /**
     * kafka-local.sh adds an SSL listener with the key store its environment names, SASL_SSL with
     * the SCRAM user it names.
     */
    @Override
    public Running launchTls(int port, int tlsPort, TlsSetup tls, String engine, boolean sasl) throws IOException {
        Map<String, String> env = new java.util.HashMap<>(Map.of("KAFKA_LOCAL_SSL_PORT", Integer.toString(tlsPort),
                "KAFKA_LOCAL_SSL_KEYSTORE", tls.keyStore.toString(),
                "KAFKA_LOCAL_SSL_PASSWORD", TlsSetup.PASSWORD));
        if (sasl) {
            env.put("KAFKA_LOCAL_SASL_SCRAM", TlsSetup.SASL_USER + ":" + TlsSetup.PASSWORD);
        }
        return launch(port, env);
    }

    private Running launch(int port, Map<String, String> env) throws IOException {
        Path pidFile = workDir.resolve("pid");
        if (Files.exists(pidFile)) {
            String old = Files.readString(pidFile, StandardCharsets.US_ASCII).trim();
            if (!old.isEmpty() && ProcessHandle.of(Long.parseLong(old)).map(ProcessHandle::isAlive).orElse(false)) {
                throw new IOException("a reference Kafka from an earlier run is still running (pid " + old
                        + "); stop it with KAFKA_LOCAL_DIR=" + workDir + " " + script + " stop");
            }
            Files.delete(pidFile);
        }
        Process starter = script(env, "start", Integer.toString(port)).start();
        return new Running() {
            @Override
            public long pid() throws IOException, InterruptedException {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (System.nanoTime() < deadline) {
                    if (Files.exists(pidFile)) {
                        String text = Files.readString(pidFile, StandardCharsets.US_ASCII).trim();
                        if (!text.isEmpty()) {
                            return Long.parseLong(text);
                        }
                    }
                    if (!starter.isAlive() && starter.exitValue() != 0) {
                        throw new IOException("kafka-local.sh start failed; see " + logFile);
                    }
                    Thread.sleep(20); // polling a file another process writes; bounded by the deadline
                }
                throw new IOException("kafka-local.sh wrote no pid in 120 s; see " + logFile);
            }

            @Override
            public boolean alive() {
                if (starter.isAlive()) {
                    return true;
                }
                if (starter.exitValue() != 0) {
                    return false;
                }
                try {
                    String text = Files.readString(pidFile, StandardCharsets.US_ASCII).trim();
                    return ProcessHandle.of(Long.parseLong(text)).map(ProcessHandle::isAlive).orElse(false);
                } catch (IOException | NumberFormatException e) {
                    return false;
                }
            }

            @Override
            public String bootstrap() {
                return "127.0.0.1:" + port;
            }

            @Override
            public void close() {
                try {
                    starter.waitFor(120, TimeUnit.SECONDS);
                    script("stop").start().waitFor(60, TimeUnit.SECONDS);
                } catch (IOException e) {
                    System.err.println("could not stop Kafka: " + e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
    }
}
