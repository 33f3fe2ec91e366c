/*
 * log_format.h — the changeset and log-entry format shared by log.c (which
 * writes it, and documents it byte by byte at its top), log_read.c (which
 * decodes it), replay.c (which tells a stored changeset from a bare stream) and
 * check.c (which verifies stored entries). Private to those files (and the tests).
 */
#ifndef ORCORE_LOG_FORMAT_H
#define ORCORE_LOG_FORMAT_H

#include "base.h"

/* Changeset header: magic | u64 version | u32 count | u64 checksum. */
#define CS_MAGIC 0xC5
#define CS_HEADER_SIZE 21
/* Stored instruction flags (ORC_INSTR_DERIVED is 0x01 in both worlds). */
#define CS_F_DERIVED 0x01
#define CS_F_PK_FIRST 0x40
#define CS_F_HAS_PK 0x80
#define CS_F_KNOWN (CS_F_DERIVED | CS_F_PK_FIRST | CS_F_HAS_PK)
/* Log entry codecs. */
#define CS_CODEC_RAW 0
#define CS_CODEC_ZSTD 1
/* The longest LEB128 encoding of a u64. */
#define CS_VARINT_MAX 10

static inline uint64_t cs_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t cs_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/** The header checksum over the instructions (see log.c). */
uint64_t cs_checksum(uint64_t version, uint32_t count, const uint8_t *p, size_t n);

/**
 * Checks a stored log entry's 5-byte header. Raw entries: *raw_out points at
 * the changeset inside `e`. Compressed ones: *compressed is set, *raw_size
 * agrees with the zstd frame, and log_entry_inflate() fills a buffer of that
 * size. Both return ORC_OK or ORC_ERR_CORRUPT naming the version.
 */
int log_entry_decode(uint64_t version, const uint8_t *e, size_t size, const uint8_t **raw_out, size_t *raw_size,
                     bool *compressed);
int log_entry_inflate(uint64_t version, const uint8_t *e, size_t size, uint8_t *dst, size_t raw);

#endif
