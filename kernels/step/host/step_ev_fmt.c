/* step_ev_fmt.c - session events as text (host only). */
#include "step/host/step_ev_fmt.h"

#include <inttypes.h>
#include <stdio.h>

int step_ev_format(const struct step_ev *ev, char *buf, size_t len)
{
	const char *t = ev->text;
	switch (ev->type) {
	case STEP_EV_LOGGED_ON:
		return snprintf(buf, len, "logged on%s%s, HeartBtInt %" PRIu64 " s, peer MsgSeqNum %" PRIu64,
				*t ? " with " : "", t, ev->a, ev->b);
	case STEP_EV_LOGON_REFUSED:
		return snprintf(buf, len, "logon refused: %s", *t ? t : "(no reason given)");
	case STEP_EV_REFUSED_PEER: return snprintf(buf, len, "refused the peer's logon: %s", t);
	case STEP_EV_LOGON_TIMEOUT:
		return snprintf(buf, len, "no logon within %" PRIu64 " ms", ev->a);
	case STEP_EV_HB_MISSED:
		return snprintf(buf, len, "heartbeat missed: peer silent for %" PRIu64 " ms, TestRequest sent", ev->a);
	case STEP_EV_HB_TIMEOUT:
		return snprintf(buf, len, "heartbeat timeout: peer silent for %" PRIu64 " ms, disconnecting", ev->a);
	case STEP_EV_PEER_LOGOUT:
		return snprintf(buf, len, "peer logged out%s%s", *t ? ": " : "", t);
	case STEP_EV_LOGGED_OUT:
		return snprintf(buf, len, "logged out%s%s", ev->a ? " (no answer from the peer)" : "",
				*t && !ev->a ? t : "");
	case STEP_EV_DISCONNECTED:
		return snprintf(buf, len, "disconnected%s", ev->a ? "" : " unexpectedly");
	case STEP_EV_SEQ_RESET:
		return snprintf(buf, len, "peer restarted its MsgSeqNum: expected %" PRIu64 ", got %" PRIu64, ev->a,
				ev->b);
	case STEP_EV_SEQ_GAP:
		return snprintf(buf, len, "MsgSeqNum gap: expected %" PRIu64 ", got %" PRIu64 " (%" PRIu64 " missing)",
				ev->a, ev->b, ev->b - ev->a);
	case STEP_EV_SEQ_REPEAT:
		return snprintf(buf, len, "MsgSeqNum repeated: expected %" PRIu64 ", got %" PRIu64, ev->a, ev->b);
	case STEP_EV_SEQ_SET:
		return snprintf(buf, len, "SequenceReset%s%s: next MsgSeqNum %" PRIu64 " (was %" PRIu64 ")",
				*t ? " " : "", t, ev->b, ev->a);
	case STEP_EV_PROTOCOL: return snprintf(buf, len, "session protocol error: %s", t);
	default: return snprintf(buf, len, "%s", step_ev_name(ev->type));
	}
}
