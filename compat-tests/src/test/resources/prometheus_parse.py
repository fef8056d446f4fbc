"""Parses a Prometheus text exposition with the Prometheus Python client's parser.

Reads the file named by the first argument and prints one line per metric family
("family NAME TYPE") and per sample ("sample NAME LABELS VALUE", LABELS sorted and joined as
k=v with commas, "-" when there are none). Exits non-zero, with the parser's error, when the
text does not parse.
"""
import sys

from prometheus_client.parser import text_string_to_metric_families


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    lines = []
    for family in text_string_to_metric_families(text):
        lines.append("family %s %s" % (family.name, family.type))
        for s in family.samples:
            labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items())) or "-"
            lines.append("sample %s %s %r" % (s.name, labels, float(s.value)))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
