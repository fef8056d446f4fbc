'use strict';
// Registers the compression codecs kafkajs 2.2.4 does not have built in (it ships GZIP only):
// Snappy (kafkajs-snappy) and LZ4 (kafkajs-lz4). There is no working ZSTD codec for current
// node: @kafkajs/zstd needs cppzst, whose native build fails on node 20. Every registered codec,
// GZIP included, is wrapped so that the scripts can report how often kafkajs really compressed or
// decompressed with it (a test that only reads the records back could not tell whether a batch
// was compressed at all).
const { CompressionTypes, CompressionCodecs } = require('kafkajs');
const SnappyCodec = require('kafkajs-snappy');
const LZ4Codec = require('kafkajs-lz4');

const NAMES = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP, snappy: CompressionTypes.Snappy, lz4: CompressionTypes.LZ4 };
const calls = { gzip: { compress: 0, decompress: 0 }, snappy: { compress: 0, decompress: 0 }, lz4: { compress: 0, decompress: 0 } };

function counted(name, factory) {
  return () => {
    const codec = factory();
    return {
      compress: (encoder) => { calls[name].compress++; return codec.compress(encoder); },
      decompress: (buffer) => { calls[name].decompress++; return codec.decompress(buffer); },
    };
  };
}

CompressionCodecs[CompressionTypes.GZIP] = counted('gzip', CompressionCodecs[CompressionTypes.GZIP]);
CompressionCodecs[CompressionTypes.Snappy] = counted('snappy', SnappyCodec);
CompressionCodecs[CompressionTypes.LZ4] = counted('lz4', new LZ4Codec().codec);

/** The kafkajs compression type for a name (none, gzip, snappy, lz4); throws for anything else. */
function compressionType(name) {
  if (!(name in NAMES)) throw new Error(`unsupported codec ${name}; kafkajs here knows ${Object.keys(NAMES)}`);
  return NAMES[name];
}

module.exports = { compressionType, calls };
