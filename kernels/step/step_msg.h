/* step_msg.h - STEP session messages: an outbound encoder and an inbound field
 * reader (synthesisable subset).
 *
 * The encoder writes whole messages
 *   8=STEP.1.0.0|9=<BodyLength>|35=..|49=..|56=..|34=..|52=..|<fields>|10=ccc|
 * into a caller-provided buffer: the body is written first at a fixed offset
 * and the header, whose length depends on BodyLength's digits, is put right
 * before it, so nothing is moved. BodyLength and CheckSum follow the rules
 * step_deframe.c checks (design.md, "SSE framing").
 *
 * The reader takes one whole message (as step_deframe delivered it: its
 * msg.raw / msg.len) and picks out the fields the session layer needs. The
 * deframer has already checked BodyLength and CheckSum; the reader only has
 * to be safe on any bytes, not to validate them again.
 *
 * Field numbers are FIX 4.4's, from which STEP (JR/T 0022) is derived; no SSE
 * session specification is in the project's references, so nothing
 * SSE-specific beyond the 8=STEP.1.0.0 header is assumed.
 */
#ifndef STEP_MSG_H
#define STEP_MSG_H

#include <stdint.h>

#define STEP_ID_MAX 32    /* CompIDs, user names, TestReqIDs, incl. NUL */
#define STEP_PW_MAX 64    /* passwords, incl. NUL */
#define STEP_TEXT_MAX 128 /* 58= Text kept, incl. NUL (longer is cut) */
#define STEP_STR_MAX 256  /* longest string value the encoder writes */
#define STEP_ENC_HDR 32   /* room reserved for "8=STEP.1.0.0|9=NNNNNN|" */

/* MsgType (35=) of the session messages */
#define STEP_MT_HEARTBEAT "0"
#define STEP_MT_TEST_REQUEST "1"
#define STEP_MT_RESEND_REQUEST "2"
#define STEP_MT_REJECT "3"
#define STEP_MT_SEQUENCE_RESET "4"
#define STEP_MT_LOGOUT "5"
#define STEP_MT_LOGON "A"

/* Field numbers */
enum {
	STEP_TAG_BEGIN_SEQ_NO = 7,
	STEP_TAG_END_SEQ_NO = 16,
	STEP_TAG_MSG_SEQ_NUM = 34,
	STEP_TAG_MSG_TYPE = 35,
	STEP_TAG_NEW_SEQ_NO = 36,
	STEP_TAG_POSS_DUP = 43,
	STEP_TAG_SENDER = 49,
	STEP_TAG_SENDING_TIME = 52,
	STEP_TAG_TARGET = 56,
	STEP_TAG_TEXT = 58,
	STEP_TAG_DATA_LEN = 95,
	STEP_TAG_DATA = 96,
	STEP_TAG_ENCRYPT_METHOD = 98,
	STEP_TAG_HEARTBT_INT = 108,
	STEP_TAG_TEST_REQ_ID = 112,
	STEP_TAG_GAP_FILL = 123,
	STEP_TAG_RESET_SEQ_NUM = 141,
	STEP_TAG_USERNAME = 553,
	STEP_TAG_PASSWORD = 554,
};

/* ---- encoder ------------------------------------------------------------------ */

struct step_enc {
	uint8_t *buf;   /* caller's buffer */
	uint32_t cap;
	uint32_t pos;   /* next body byte */
	uint32_t start; /* after step_enc_end(): the message is buf[start .. start+len) */
	uint32_t len;
	uint32_t ok;    /* 0 once anything did not fit (or a string was too long) */
};

/* Start a message: 35=msgtype, 49=sender, 56=target (each left out when
 * empty), 34=seq, 52=SendingTime from utc_ms (ms since 1970, written
 * YYYYMMDD-HH:MM:SS.sss). cap must exceed STEP_ENC_HDR + 7. */
void step_enc_begin(struct step_enc *e, uint8_t *buf, uint32_t cap, const char *msgtype, const char *sender,
		    const char *target, uint64_t seq, uint64_t utc_ms);
void step_enc_str(struct step_enc *e, uint32_t tag, const char *s); /* NUL-terminated, < STEP_STR_MAX */
void step_enc_u64(struct step_enc *e, uint32_t tag, uint64_t v);
void step_enc_data(struct step_enc *e, const uint8_t *p, uint32_t n); /* 95=n|96=<n bytes>| */
/* Finish: BodyLength, CheckSum. Returns the message length, 0 when it did not fit. */
uint32_t step_enc_end(struct step_enc *e);

/* "YYYYMMDD-HH:MM:SS.sss" (21 bytes) for utc_ms; out needs 22 with the NUL. */
void step_fmt_time(uint64_t utc_ms, char out[22]);

/* ---- reader -------------------------------------------------------------------- */

struct step_fields {
	char msgtype[16];
	uint64_t seq;                     /* 34= (0 when absent) */
	char sender[STEP_ID_MAX];         /* 49= */
	char target[STEP_ID_MAX];         /* 56= */
	char username[STEP_ID_MAX];       /* 553= */
	char password[STEP_PW_MAX];       /* 554= */
	char test_req_id[STEP_ID_MAX];    /* 112= */
	char text[STEP_TEXT_MAX];         /* 58= (cut to fit: text_cut) */
	uint32_t has_heartbeat;           /* 108= present */
	uint32_t heartbeat_s;             /* 108= */
	uint32_t has_encrypt;             /* 98= present */
	uint32_t encrypt;                 /* 98= */
	uint32_t reset_seq;               /* 141=Y */
	uint32_t poss_dup;                /* 43=Y */
	uint32_t gap_fill;                /* 123=Y */
	uint32_t has_new_seq;             /* 36= present */
	uint64_t new_seq;                 /* 36= */
	uint64_t begin_seq, end_seq;      /* 7=, 16= */
	const uint8_t *data;              /* 96= (into the message), data_len bytes */
	uint32_t data_len;
	uint32_t text_cut;                /* 58= was longer than text[] */
	uint32_t too_long;                /* an id or password longer than its field: the value is unusable */
};

/* Read m[0..len), one whole STEP message. 0, or -1 when it is not a sequence
 * of tag=value fields with a 35= (the fields read so far are still set). */
int step_fields_read(const uint8_t *m, uint32_t len, struct step_fields *f);

/* 1 when msgtype (NUL-terminated) is a session message (0 1 2 3 4 5 A). */
int step_is_admin(const char *msgtype);

/* Bounded string helpers the session shares (no libc in the subset). */
uint32_t step_strlen(const char *s, uint32_t max); /* max when no NUL before it */
int step_streq(const char *a, const char *b, uint32_t max);
void step_strcpy(char *dst, const char *src, uint32_t cap); /* cuts to cap - 1, always terminates */

#endif
