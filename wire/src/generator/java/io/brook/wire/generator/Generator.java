package io.brook.wire.generator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Turns the message schemas of wire/src/main/schema into the Java classes of package
 * io.brook.wire.message. Compiled and run at generate-sources time (see wire/pom.xml):
 *
 * <pre>java -cp target/generator-classes io.brook.wire.generator.Generator &lt;schema dir&gt; &lt;output source root&gt;</pre>
 *
 * <h2>Schema format</h2>
 *
 * One file per request or response body, named after the class:
 *
 * <pre>
 * ## &lt;ClassName&gt; key=&lt;api key&gt; valid=&lt;min&gt;-&lt;max&gt; flex=&lt;first flexible version&gt;+|none
 * - &lt;FieldName&gt;: &lt;type&gt; v&lt;versions&gt; (&lt;options&gt;)
 *   - &lt;StructField&gt;: ...            indented lines are the members of the struct above
 * </pre>
 *
 * <ul>
 *   <li>types: {@code int8 int16 int32 int64 uint16 uint32 float64 bool uuid string bytes records},
 *       {@code []T} for arrays (T primitive or a struct name), or a struct name for a single
 *       nested struct;</li>
 *   <li>versions: {@code v3+}, {@code v0-12} or {@code v5};</li>
 *   <li>options, comma separated: {@code nullable v<versions>}; {@code TAGGED tag=<n> v<versions>};
 *       {@code ignorable} (dropped silently when writing a version without the field);
 *       {@code default=<value>} ({@code null}, a number, {@code 0x...}, {@code true}/{@code false},
 *       or nothing for the empty string);</li>
 *   <li>a line {@code (struct X)} marks a struct that is declared again, with the same members,
 *       elsewhere in the same message; it becomes one nested class. Lines starting with {@code #}
 *       are comments.</li>
 * </ul>
 *
 * <h2>Error responses</h2>
 *
 * Every request class gets {@code errorResponse(short version, Errors error)}: the response a
 * broker sends when it fails the whole request. It mirrors the request: one element for every
 * topic, partition, group or resource the request named, the error code at every level that has
 * one, everything else at its default. Three response-side options say what the schema alone
 * cannot:
 * <ul>
 *   <li>{@code mirror=<RequestField>}: on a response array of structs; it gets one element per
 *       element of that request array (in the request element that encloses it, or of the request
 *       at the top level). {@code mirror=A|B} names alternatives for different versions: the
 *       first that exists in the version is used. A null request array mirrors as empty.
 *       {@code mirror=A.B} (alone) flattens: one element per element of every array {@code B}
 *       of the elements of request array {@code A}, for a response that lists flat what the
 *       request nests.</li>
 *   <li>{@code copy=<RequestField>}: on a response field of a mirrored element (or of the top
 *       level); it takes the value of that field of the request element. When the mirrored
 *       request array holds plain values ({@code []string}, {@code []int32}), naming that array
 *       copies the element itself. {@code copy=A|B}: the first name that resolves in the
 *       mirrored element. A null copied into a field that cannot be null in the version becomes
 *       the field's default.</li>
 *   <li>{@code onerror=<value>}: the field's value in an error response when it differs from the
 *       default (e.g. {@code -1} offsets), written like a default; {@code null} becomes the
 *       default in versions where the field cannot be null, and an empty value for
 *       {@code records} means no records rather than null.</li>
 * </ul>
 * Every {@code ErrorCode: int16} field at the top level and in mirrored elements gets the error's
 * code, and every {@code ErrorMessage: string} field null where it may be null (as if
 * {@code onerror=null}), so that the client shows its own text for the error rather than an empty
 * message. Fields are set only in versions that have them.
 *
 * <p>The setter of every {@code ErrorMessage: string} field shortens a message whose UTF-8 form
 * a classic string cannot carry (over 32,767 bytes) to one that fits, marked as truncated, so a
 * message quoting a client's long input cannot turn the error into a failure to encode.
 */
public final class Generator {

    static final String PACKAGE = "io.brook.wire.message";

    private Generator() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Generator <schema dir> <output source root>");
            System.exit(2);
        }
        Path in = Path.of(args[0]);
        Path out = Path.of(args[1]).resolve(PACKAGE.replace('.', '/'));
        Files.createDirectories(out);
        List<Message> messages = new ArrayList<>();
        try (Stream<Path> files = Files.list(in)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".schema")).sorted().toList()) {
                messages.add(SchemaParser.parse(p));
            }
        }
        Map<String, Message> responses = new HashMap<>();
        for (Message m : messages) {
            if (!m.isRequest()) {
                responses.put(m.apiName(), m);
            }
        }
        for (Message m : messages) {
            Message response = m.isRequest() ? responses.get(m.apiName()) : null;
            if (m.isRequest() && response == null) {
                throw new IllegalArgumentException(m.name + " has no response schema");
            }
            write(out.resolve(m.name + ".java"), new MessageWriter(m, response).generate());
        }
        write(out.resolve("ApiMessages.java"), RegistryWriter.generate(messages));
        System.out.println("Generated " + messages.size() + " message classes into " + out);
    }

    private static void write(Path path, String content) throws IOException {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        if (Files.exists(path) && Arrays.equals(Files.readAllBytes(path), bytes)) {
            return; // keep timestamps stable so incremental compilation has nothing to do
        }
        Files.write(path, bytes);
    }
}
