package io.brook.wire.generator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
        for (Message m : messages) {
            write(out.resolve(m.name + ".java"), new MessageWriter(m).generate());
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
