/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of MRC: mrc:mrc_path_state, mrc:mrc_pkt_lost,
 * mrc:mrc_retransmit, mrc:mrc_nack_send, mrc:mrc_nack_recv and mrc:mrc_rto.
 * Documentation/networking/mrc.rst lists their fields.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrc

#if !defined(_MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRC_TRACE_H

#include <linux/mrc.h>
#include <linux/tracepoint.h>

#include "pathset.h"
#include "socket.h"
#include "mrc_wire.h"
#include "output.h"
#include "recovery.h"

TRACE_DEFINE_ENUM(MRC_PATH_GOOD);
TRACE_DEFINE_ENUM(MRC_PATH_ASSUMED_BAD);
TRACE_DEFINE_ENUM(MRC_PATH_DENIED);
TRACE_DEFINE_ENUM(MRC_REASON_ADDED);
TRACE_DEFINE_ENUM(MRC_REASON_OPERATOR);
TRACE_DEFINE_ENUM(MRC_REASON_LOSS);
TRACE_DEFINE_ENUM(MRC_REASON_PROBE);
TRACE_DEFINE_ENUM(MRC_REASON_SPURIOUS);
TRACE_DEFINE_ENUM(MRC_LOST_RACK);
TRACE_DEFINE_ENUM(MRC_LOST_PATH_TIMEOUT);
TRACE_DEFINE_ENUM(MRC_LOST_RTO);
TRACE_DEFINE_ENUM(MRC_LOST_NO_ROUTE);
TRACE_DEFINE_ENUM(MRC_LOST_QDISC_DROP);
TRACE_DEFINE_ENUM(MRC_LOST_PATH_RETIRED);
TRACE_DEFINE_ENUM(MRC_LOST_TAIL_PROBE);
TRACE_DEFINE_ENUM(MRC_NACK_TRIMMED);
TRACE_DEFINE_ENUM(MRC_NACK_NO_BUFFER);

#define mrc_show_path_state(s)					\
	__print_symbolic(s,					\
			 { MRC_PATH_GOOD, "good" },		\
			 { MRC_PATH_ASSUMED_BAD, "assumed-bad" },	\
			 { MRC_PATH_DENIED, "denied" })

#define mrc_show_path_reason(r)					\
	__print_symbolic(r,					\
			 { MRC_REASON_ADDED, "added" },		\
			 { MRC_REASON_OPERATOR, "operator" },	\
			 { MRC_REASON_LOSS, "loss" },		\
			 { MRC_REASON_PROBE, "probe" },		\
			 { MRC_REASON_SPURIOUS, "spurious" })

#define mrc_show_lost_reason(r)					\
	__print_symbolic(r,					\
			 { MRC_LOST_RACK, "rack" },		\
			 { MRC_LOST_PATH_TIMEOUT, "path-timeout" },	\
			 { MRC_LOST_RTO, "rto" },		\
			 { MRC_LOST_NO_ROUTE, "no-route" },	\
			 { MRC_LOST_QDISC_DROP, "qdisc-drop" },	\
			 { MRC_LOST_PATH_RETIRED, "path-retired" },	\
			 { MRC_LOST_TAIL_PROBE, "tail-probe" })

#define mrc_show_nack_reason(r)					\
	__print_symbolic(r,					\
			 { MRC_NACK_TRIMMED, "trimmed" },	\
			 { MRC_NACK_NO_BUFFER, "no-buffer" })

TRACE_EVENT(mrc_path_state,
	    TP_PROTO(const struct mrc_path *p, u8 old, u8 state, u8 reason),
	    TP_ARGS(p, old, state, reason),
	    TP_STRUCT__entry(__array(u8, prefix, sizeof(struct in6_addr))
			     __field(u8, plen)
			     __field(u16, id)
			     __field(u8, old)
			     __field(u8, state)
			     __field(u8, reason)),
	    TP_fast_assign(memcpy(__entry->prefix, &p->prefix,
				  sizeof(struct in6_addr));
			   __entry->plen = p->plen;
			   __entry->id = p->id;
			   __entry->old = old;
			   __entry->state = state;
			   __entry->reason = reason),
	    TP_printk("prefix=%pI6c/%u id=%u %s -> %s reason=%s",
		      __entry->prefix, __entry->plen, __entry->id,
		      mrc_show_path_state(__entry->old),
		      mrc_show_path_state(__entry->state),
		      mrc_show_path_reason(__entry->reason))
);

#ifndef _MRC_TRACE_HELPERS
#define _MRC_TRACE_HELPERS
/* The connection an event is about: both ends, and this end's id. */
static inline void mrc_tp_conn(const struct mrc_sock *msk, u8 *saddr,
			       u8 *daddr, u16 *sport, u16 *dport, u32 *lcid)
{
	memcpy(saddr, &msk->saddr, sizeof(struct in6_addr));
	memcpy(daddr, &msk->daddr, sizeof(struct in6_addr));
	*sport = ntohs(msk->lport);
	*dport = ntohs(msk->dport);
	*lcid = msk->lcid;
}
#endif

#define MRC_TP_CONN_FMT	"src=[%pI6c]:%u dst=[%pI6c]:%u cid=%u"

/* A packet of a connection: its PSN, the EV of the path it was sent on,
 * and @why, a number whose meaning is the event's. As the class prints
 * it, @why is an enum mrc_nack_reason.
 */
DECLARE_EVENT_CLASS(mrc_pkt_class,
		    TP_PROTO(const struct mrc_sock *msk, u32 psn, u16 ev, u8 why),
		    TP_ARGS(msk, psn, ev, why),
		    TP_STRUCT__entry(__array(u8, saddr, sizeof(struct in6_addr))
				     __array(u8, daddr, sizeof(struct in6_addr))
				     __field(u16, sport)
				     __field(u16, dport)
				     __field(u32, lcid)
				     __field(u32, psn)
				     __field(u16, ev)
				     __field(u8, why)),
		    TP_fast_assign(mrc_tp_conn(msk, __entry->saddr, __entry->daddr,
					       &__entry->sport, &__entry->dport,
					       &__entry->lcid);
				   __entry->psn = psn;
				   __entry->ev = ev;
				   __entry->why = why),
		    TP_printk(MRC_TP_CONN_FMT " psn=%u ev=%u reason=%s",
			      __entry->saddr, __entry->sport, __entry->daddr,
			      __entry->dport, __entry->lcid, __entry->psn, __entry->ev,
			      mrc_show_nack_reason(__entry->why))
);

/* The receiver sent a NACK. */
DEFINE_EVENT(mrc_pkt_class, mrc_nack_send,
	     TP_PROTO(const struct mrc_sock *msk, u32 psn, u16 ev, u8 why),
	     TP_ARGS(msk, psn, ev, why)
);

/* The sender took a NACK: one about the latest transmission of a packet
 * in flight, of a known reason.
 */
DEFINE_EVENT(mrc_pkt_class, mrc_nack_recv,
	     TP_PROTO(const struct mrc_sock *msk, u32 psn, u16 ev, u8 why),
	     TP_ARGS(msk, psn, ev, why)
);

/* @why: enum mrc_lost_reason */
DEFINE_EVENT_PRINT(mrc_pkt_class, mrc_pkt_lost,
		   TP_PROTO(const struct mrc_sock *msk, u32 psn, u16 ev, u8 why),
		   TP_ARGS(msk, psn, ev, why),
		   TP_printk(MRC_TP_CONN_FMT " psn=%u ev=%u reason=%s",
			     __entry->saddr, __entry->sport, __entry->daddr,
			     __entry->dport, __entry->lcid, __entry->psn, __entry->ev,
			     mrc_show_lost_reason(__entry->why))
);

/* @why: how many times it has been sent, this one included */
DEFINE_EVENT_PRINT(mrc_pkt_class, mrc_retransmit,
		   TP_PROTO(const struct mrc_sock *msk, u32 psn, u16 ev, u8 why),
		   TP_ARGS(msk, psn, ev, why),
		   TP_printk(MRC_TP_CONN_FMT " psn=%u ev=%u xmits=%u",
			     __entry->saddr, __entry->sport, __entry->daddr,
			     __entry->dport, __entry->lcid, __entry->psn, __entry->ev,
			     __entry->why)
);

TRACE_EVENT(mrc_rto,
	    TP_PROTO(const struct mrc_sock *msk),
	    TP_ARGS(msk),
	    TP_STRUCT__entry(__array(u8, saddr, sizeof(struct in6_addr))
			     __array(u8, daddr, sizeof(struct in6_addr))
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(u32, lcid)
			     __field(u32, snd_una)
			     __field(u32, snd_nxt)
			     __field(u32, rto_us)
			     __field(u32, backoff)
			     __field(u32, path_rto_us)
			     __field(u32, rack_excess_us)),
	    TP_fast_assign(mrc_tp_conn(msk, __entry->saddr, __entry->daddr,
				       &__entry->sport, &__entry->dport,
				       &__entry->lcid);
			   __entry->snd_una = msk->snd_una;
			   __entry->snd_nxt = msk->snd_nxt;
			   __entry->rto_us = msk->rto_us;
			   __entry->backoff = msk->backoff;
			   __entry->path_rto_us = msk->path_rto_us;
			   __entry->rack_excess_us = msk->rack_excess_us),
	    TP_printk(MRC_TP_CONN_FMT " snd_una=%u snd_nxt=%u rto_us=%u backoff=%u path_rto_us=%u rack_excess_us=%u",
		      __entry->saddr, __entry->sport, __entry->daddr,
		      __entry->dport, __entry->lcid, __entry->snd_una, __entry->snd_nxt,
		      __entry->rto_us, __entry->backoff, __entry->path_rto_us,
		      __entry->rack_excess_us)
);

#endif /* _MRC_TRACE_H */

/* This file is not in include/trace/events/: say where it is. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
