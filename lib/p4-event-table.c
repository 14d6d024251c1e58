/* SDM Vol. 3B Table 18-26 (ESCR/counter bindings), Appendix A Tables A-9/A-10 (events) */
/*
 * The NetBurst tables: which counters each ESCR feeds, and every event libpfm4's
 * "netburst" PMU knows (plus instr_completed of "netburst_p"), with libpfm4's event and
 * umask names and defaults, the ESCR event select, the CCCR ESCR-select value and the
 * ESCRs that can hold it.
 */
#include "lib/p4-events.h"
#include "lib/p4-regs.h"
#include "lib/util.h"

#define ESCR0_OF(unit, grp, c0, c1, sel) \
	[P4_ESCR_##unit##0] = { #unit "_ESCR0", MSR_##unit##_ESCR0, P4_GROUP_##grp, 2, { c0, c1 }, sel, false }
#define ESCR1_OF(unit, grp, c0, c1, sel) \
	[P4_ESCR_##unit##1] = { #unit "_ESCR1", MSR_##unit##_ESCR1, P4_GROUP_##grp, 2, { c0, c1 }, sel, false }
/* Each unit's ESCR0 feeds the first two counters of its group, ESCR1 the next two;
 * in the IQ group the even-numbered ESCRs also feed counter 16, the odd ones 17. sel is
 * the CCCR ESCR-select value that picks the ESCR on those counters (Table 18-26, its
 * "ESCR select" column): unique within a group, so a counter listens to exactly one. */
#define PAIR(unit, grp, base, sel) \
	ESCR0_OF(unit, grp, base, base + 1, sel), ESCR1_OF(unit, grp, base + 2, base + 3, sel)
#define IQ_ESCR(id, nm, m, c0, c1, c2, sel, early) \
	[P4_ESCR_##id] = { nm, m, P4_GROUP_IQ, 3, { c0, c1, c2 }, sel, early }

const struct p4_escr_info p4_escr_table[P4_ESCR_COUNT] = {
	PAIR(BSU, BPU, 0, 7), PAIR(FSB, BPU, 0, 6), PAIR(MOB, BPU, 0, 2), PAIR(PMH, BPU, 0, 4),
	PAIR(BPU, BPU, 0, 0), PAIR(IS, BPU, 0, 1), PAIR(ITLB, BPU, 0, 3), PAIR(IX, BPU, 0, 5),
	PAIR(MS, MS, 4, 0), PAIR(TBPU, MS, 4, 2), PAIR(TC, MS, 4, 1),
	PAIR(FIRM, FLAME, 8, 1), PAIR(FLAME, FLAME, 8, 0), PAIR(DAC, FLAME, 8, 5),
	PAIR(SAAT, FLAME, 8, 2), PAIR(U2L, FLAME, 8, 3),
	IQ_ESCR(CRU0, "CRU_ESCR0", MSR_CRU_ESCR0, 12, 13, 16, 4, false),
	IQ_ESCR(CRU1, "CRU_ESCR1", MSR_CRU_ESCR1, 14, 15, 17, 4, false),
	IQ_ESCR(CRU2, "CRU_ESCR2", MSR_CRU_ESCR2, 12, 13, 16, 5, false),
	IQ_ESCR(CRU3, "CRU_ESCR3", MSR_CRU_ESCR3, 14, 15, 17, 5, false),
	IQ_ESCR(CRU4, "CRU_ESCR4", MSR_CRU_ESCR4, 12, 13, 16, 6, false),
	IQ_ESCR(CRU5, "CRU_ESCR5", MSR_CRU_ESCR5, 14, 15, 17, 6, false),
	IQ_ESCR(IQ0, "IQ_ESCR0", MSR_IQ_ESCR0, 12, 13, 16, 0, true),
	IQ_ESCR(IQ1, "IQ_ESCR1", MSR_IQ_ESCR1, 14, 15, 17, 0, true),
	IQ_ESCR(RAT0, "RAT_ESCR0", MSR_RAT_ESCR0, 12, 13, 16, 2, false),
	IQ_ESCR(RAT1, "RAT_ESCR1", MSR_RAT_ESCR1, 14, 15, 17, 2, false),
	IQ_ESCR(SSU0, "SSU_ESCR0", MSR_SSU_ESCR0, 12, 13, 16, 3, false),
	IQ_ESCR(ALF0, "ALF_ESCR0", MSR_ALF_ESCR0, 12, 13, 16, 1, false),
	IQ_ESCR(ALF1, "ALF_ESCR1", MSR_ALF_ESCR1, 14, 15, 17, 1, false),
};

const struct p4_group_info p4_group_table[P4_GROUP_COUNT] = {
	[P4_GROUP_BPU]   = { "BPU", 0, 4 },
	[P4_GROUP_MS]    = { "MS", 4, 4 },
	[P4_GROUP_FLAME] = { "FLAME", 8, 4 },
	[P4_GROUP_IQ]    = { "IQ", 12, 6 },
};

const char *const p4_counter_name[18] = {
	"BPU_COUNTER0", "BPU_COUNTER1", "BPU_COUNTER2", "BPU_COUNTER3",
	"MS_COUNTER0", "MS_COUNTER1", "MS_COUNTER2", "MS_COUNTER3",
	"FLAME_COUNTER0", "FLAME_COUNTER1", "FLAME_COUNTER2", "FLAME_COUNTER3",
	"IQ_COUNTER0", "IQ_COUNTER1", "IQ_COUNTER2", "IQ_COUNTER3", "IQ_COUNTER4", "IQ_COUNTER5",
};

const char *const p4_cccr_name[18] = {
	"BPU_CCCR0", "BPU_CCCR1", "BPU_CCCR2", "BPU_CCCR3",
	"MS_CCCR0", "MS_CCCR1", "MS_CCCR2", "MS_CCCR3",
	"FLAME_CCCR0", "FLAME_CCCR1", "FLAME_CCCR2", "FLAME_CCCR3",
	"IQ_CCCR0", "IQ_CCCR1", "IQ_CCCR2", "IQ_CCCR3", "IQ_CCCR4", "IQ_CCCR5",
};

int p4_escr_by_msr(uint32_t msr)
{
	for (unsigned i = 0; i < P4_ESCR_COUNT; i++)
		if (p4_escr_table[i].msr == msr)
			return (int)i;
	return -1;
}

/* ---- Events */

#define UM(n, b)        { .name = n, .bit = b }
#define UM_DFL(n, b)    { .name = n, .bit = b, .dfl = true }
#define TWO(unit)       .nescrs = 2, .escr = { P4_ESCR_##unit##0, P4_ESCR_##unit##1 }
#define ONE(id)         .nescrs = 1, .escr = { P4_ESCR_##id, P4_ESCR_##id }

/* FIRM uop events: ALL (default) and the four execution-tag bits. */
#define UOP_TAGS(all) \
	.numasks = 5, .umask = { UM_DFL("ALL", 15), UM("TAG0", 16), UM("TAG1", 17), \
				 UM("TAG2", 18), UM("TAG3", 19) }
#define IOQ_UMASKS \
	.numasks = 15, .umask = { UM("TYPE_BIT0", 0), UM("TYPE_BIT1", 1), UM("TYPE_BIT2", 2), \
		UM("TYPE_BIT3", 3), UM("TYPE_BIT4", 4), UM("ALL_READ", 5), UM("ALL_WRITE", 6), \
		UM("MEM_UC", 7), UM("MEM_WC", 8), UM("MEM_WT", 9), UM("MEM_WP", 10), \
		UM("MEM_WB", 11), UM("OWN", 13), UM("OTHER", 14), UM("PREFETCH", 15) }
#define BSQ_UMASKS \
	.numasks = 13, .umask = { UM("REQ_TYPE0", 0), UM("REQ_TYPE1", 1), UM("REQ_LEN0", 2), \
		UM("REQ_LEN1", 3), UM("REQ_IO_TYPE", 5), UM("REQ_LOCK_TYPE", 6), \
		UM("REQ_CACHE_TYPE", 7), UM("REQ_SPLIT_TYPE", 8), UM("REQ_DEM_TYPE", 9), \
		UM("REQ_ORD_TYPE", 10), UM("MEM_TYPE0", 11), UM("MEM_TYPE1", 12), \
		UM("MEM_TYPE2", 13) }
#define BRANCH_TYPES \
	.numasks = 4, .umask = { UM("CONDITIONAL", 1), UM("CALL", 2), UM("RETURN", 3), \
				 UM("INDIRECT", 4) }

const struct nb_event nb_event_table[] = {
	{ .name = "TC_deliver_mode", .event_select = 0x01, .escr_select = 1, TWO(TC),
	  .numasks = 8, .umask = { UM("DD", 0), UM("DB", 1), UM("DI", 2), UM("BD", 3),
				   UM("BB", 4), UM("BI", 5), UM("ID", 6), UM("IB", 7) } },
	{ .name = "BPU_fetch_request", .event_select = 0x03, .escr_select = 0, TWO(BPU),
	  .numasks = 1, .umask = { UM_DFL("TCMISS", 0) } },
	{ .name = "ITLB_reference", .event_select = 0x18, .escr_select = 3, TWO(ITLB),
	  .numasks = 3, .umask = { UM("HIT", 0), UM("MISS", 1), UM("HIT_UC", 2) } },
	{ .name = "memory_cancel", .event_select = 0x02, .escr_select = 5, TWO(DAC),
	  .numasks = 2, .umask = { UM("ST_RB_FULL", 2), UM("64K_CONF", 3) } },
	{ .name = "memory_complete", .event_select = 0x08, .escr_select = 2, TWO(SAAT),
	  .numasks = 2, .umask = { UM("LSC", 0), UM("SSC", 1) } },
	{ .name = "load_port_replay", .event_select = 0x04, .escr_select = 2, TWO(SAAT),
	  .numasks = 1, .umask = { UM_DFL("SPLIT_LD", 1) } },
	{ .name = "store_port_replay", .event_select = 0x05, .escr_select = 2, TWO(SAAT),
	  .numasks = 1, .umask = { UM_DFL("SPLIT_ST", 1) } },
	{ .name = "MOB_load_replay", .event_select = 0x03, .escr_select = 2, TWO(MOB),
	  .numasks = 4, .umask = { UM("NO_STA", 1), UM("NO_STD", 3), UM("PARTIAL_DATA", 4),
				   UM("UNALGN_ADDR", 5) } },
	{ .name = "page_walk_type", .event_select = 0x01, .escr_select = 4, TWO(PMH),
	  .numasks = 2, .umask = { UM("DTMISS", 0), UM("ITMISS", 1) } },
	{ .name = "BSQ_cache_reference", .event_select = 0x0c, .escr_select = 7, TWO(BSU),
	  .numasks = 9, .umask = { UM("RD_2ndL_HITS", 0), UM("RD_2ndL_HITE", 1),
		UM("RD_2ndL_HITM", 2), UM("RD_3rdL_HITS", 3), UM("RD_3rdL_HITE", 4),
		UM("RD_3rdL_HITM", 5), UM("RD_2ndL_MISS", 8), UM("RD_3rdL_MISS", 9),
		UM("WR_2ndL_MISS", 10) } },
	{ .name = "IOQ_allocation", .event_select = 0x03, .escr_select = 6, TWO(FSB), IOQ_UMASKS },
	/* Only FSB_ESCR1 (Table A-9). */
	{ .name = "IOQ_active_entries", .event_select = 0x1a, .escr_select = 6, ONE(FSB1),
	  IOQ_UMASKS },
	{ .name = "FSB_data_activity", .event_select = 0x17, .escr_select = 6, TWO(FSB),
	  .numasks = 6, .umask = { UM("DRDY_DRV", 0), UM("DRDY_OWN", 1), UM("DRDY_OTHER", 2),
				   UM("DBSY_DRV", 3), UM("DBSY_OWN", 4), UM("DBSY_OTHER", 5) } },
	{ .name = "BSQ_allocation", .event_select = 0x05, .escr_select = 7, ONE(BSU0), BSQ_UMASKS },
	{ .name = "BSQ_active_entries", .event_select = 0x06, .escr_select = 7, ONE(BSU1),
	  BSQ_UMASKS },
	{ .name = "SSE_input_assist", .event_select = 0x34, .escr_select = 1, TWO(FIRM),
	  .numasks = 1, .umask = { UM_DFL("ALL", 15) } },
	{ .name = "packed_SP_uop", .event_select = 0x08, .escr_select = 1, TWO(FIRM), UOP_TAGS() },
	{ .name = "packed_DP_uop", .event_select = 0x0c, .escr_select = 1, TWO(FIRM), UOP_TAGS() },
	{ .name = "scalar_SP_uop", .event_select = 0x0a, .escr_select = 1, TWO(FIRM), UOP_TAGS() },
	{ .name = "scalar_DP_uop", .event_select = 0x0e, .escr_select = 1, TWO(FIRM), UOP_TAGS() },
	{ .name = "64bit_MMX_uop", .event_select = 0x02, .escr_select = 1, TWO(FIRM), UOP_TAGS() },
	{ .name = "128bit_MMX_uop", .event_select = 0x1a, .escr_select = 1, TWO(FIRM), UOP_TAGS() },
	{ .name = "x87_FP_uop", .event_select = 0x04, .escr_select = 1, TWO(FIRM), UOP_TAGS() },
	{ .name = "TC_misc", .event_select = 0x06, .escr_select = 1, TWO(TC),
	  .numasks = 1, .umask = { UM_DFL("FLUSH", 4) } },
	{ .name = "global_power_events", .event_select = 0x13, .escr_select = 6, TWO(FSB),
	  .numasks = 1, .umask = { UM_DFL("RUNNING", 0) } },
	{ .name = "tc_ms_xfer", .event_select = 0x05, .escr_select = 0, TWO(MS),
	  .numasks = 1, .umask = { UM_DFL("CISC", 0) } },
	{ .name = "uop_queue_writes", .event_select = 0x09, .escr_select = 0, TWO(MS),
	  .numasks = 3, .umask = { UM("FROM_TC_BUILD", 0), UM("FROM_TC_DELIVER", 1),
				   UM("FROM_ROM", 2) } },
	{ .name = "retired_mispred_branch_type", .event_select = 0x05, .escr_select = 2,
	  TWO(TBPU), BRANCH_TYPES },
	{ .name = "retired_branch_type", .event_select = 0x04, .escr_select = 2, TWO(TBPU),
	  BRANCH_TYPES },
	{ .name = "resource_stall", .event_select = 0x01, .escr_select = 1, TWO(ALF),
	  .numasks = 1, .umask = { UM_DFL("SBFULL", 5) } },
	{ .name = "WC_Buffer", .event_select = 0x05, .escr_select = 5, TWO(DAC),
	  .numasks = 2, .umask = { UM("WCB_EVICTS", 0), UM("WCB_FULL_EVICT", 1) } },
	/* Four undocumented bus events. libpfm4 and Linux's p4 driver give them CCCR
	 * ESCR-select 03H with the FSB ESCRs, but on counters 0-3 select 03H names
	 * ITLB_ESCR0/1 (Table 18-26): the counter would count whatever the ITLB ESCR
	 * holds, not the FSB event programmed. Their event selects are FSB-unit ones
	 * (FSB_ESCR0/1 only), so we keep the FSB ESCRs and select them with 06H, as
	 * IOQ_allocation and global_power_events do (docs/events.md).
	 * b2b_cycles' mask bits are 6:1; libpfm4 4.13 maps BIT5 and BIT6 to bit 4. */
	{ .name = "b2b_cycles", .event_select = 0x16, .escr_select = 6, TWO(FSB),
	  .numasks = 6, .umask = { UM("BIT1", 1), UM("BIT2", 2), UM("BIT3", 3), UM("BIT4", 4),
				   UM("BIT5", 5), UM("BIT6", 6) } },
	{ .name = "bnr", .event_select = 0x08, .escr_select = 6, TWO(FSB),
	  .numasks = 3, .umask = { UM("BIT0", 0), UM("BIT1", 1), UM("BIT2", 2) } },
	{ .name = "snoop", .event_select = 0x06, .escr_select = 6, TWO(FSB),
	  .numasks = 3, .umask = { UM("BIT2", 2), UM("BIT6", 6), UM("BIT7", 7) } },
	{ .name = "response", .event_select = 0x04, .escr_select = 6, TWO(FSB),
	  .numasks = 4, .umask = { UM("BIT1", 1), UM("BIT2", 2), UM("BIT8", 8), UM("BIT9", 9) } },
	{ .name = "front_end_event", .event_select = 0x08, .escr_select = 5,
	  .nescrs = 2, .escr = { P4_ESCR_CRU2, P4_ESCR_CRU3 },
	  .numasks = 2, .umask = { UM("NBOGUS", 0), UM("BOGUS", 1) } },
	{ .name = "execution_event", .event_select = 0x0c, .escr_select = 5,
	  .nescrs = 2, .escr = { P4_ESCR_CRU2, P4_ESCR_CRU3 },
	  .numasks = 8, .umask = { UM("NBOGUS0", 0), UM("NBOGUS1", 1), UM("NBOGUS2", 2),
		UM("NBOGUS3", 3), UM("BOGUS0", 4), UM("BOGUS1", 5), UM("BOGUS2", 6),
		UM("BOGUS3", 7) } },
	/* Bits 10:2 select the replay cause through IA32_PEBS_ENABLE / MSR_PEBS_MATRIX_VERT
	 * (Table A-12), not the ESCR: only NBOGUS/BOGUS reach the event mask. */
	{ .name = "replay_event", .event_select = 0x09, .escr_select = 5,
	  .nescrs = 2, .escr = { P4_ESCR_CRU2, P4_ESCR_CRU3 }, .virtual_mask = 0x07fc,
	  .numasks = 11, .umask = { UM("NBOGUS", 0), UM("BOGUS", 1), UM("L1_LD_MISS", 2),
		UM("L2_LD_MISS", 3), UM("DTLB_LD_MISS", 4), UM("DTLB_ST_MISS", 5),
		UM("DTLB_ALL_MISS", 6), UM("BR_MSP", 7), UM("MOB_LD_REPLAY", 8),
		UM("SP_LD_RET", 9), UM("SP_ST_RET", 10) } },
	{ .name = "instr_retired", .event_select = 0x02, .escr_select = 4, TWO(CRU),
	  .numasks = 4, .umask = { UM("NBOGUSNTAG", 0), UM("NBOGUSTAG", 1), UM("BOGUSNTAG", 2),
				   UM("BOGUSTAG", 3) } },
	{ .name = "uops_retired", .event_select = 0x01, .escr_select = 4, TWO(CRU),
	  .numasks = 2, .umask = { UM("NBOGUS", 0), UM("BOGUS", 1) } },
	{ .name = "uops_type", .event_select = 0x02, .escr_select = 2, TWO(RAT),
	  .numasks = 2, .umask = { UM("TAGLOADS", 1), UM("TAGSTORES", 2) } },
	{ .name = "branch_retired", .event_select = 0x06, .escr_select = 5,
	  .nescrs = 2, .escr = { P4_ESCR_CRU2, P4_ESCR_CRU3 },
	  .numasks = 4, .umask = { UM("MMNP", 0), UM("MMNM", 1), UM("MMTP", 2), UM("MMTM", 3) } },
	{ .name = "mispred_branch_retired", .event_select = 0x03, .escr_select = 4, TWO(CRU),
	  .numasks = 1, .umask = { UM_DFL("BOGUS", 0) } },
	{ .name = "x87_assist", .event_select = 0x03, .escr_select = 5,
	  .nescrs = 2, .escr = { P4_ESCR_CRU2, P4_ESCR_CRU3 },
	  .numasks = 5, .umask = { UM("FPSU", 0), UM("FPSO", 1), UM("POAO", 2), UM("POAU", 3),
				   UM("PREA", 4) } },
	{ .name = "machine_clear", .event_select = 0x02, .escr_select = 5,
	  .nescrs = 2, .escr = { P4_ESCR_CRU2, P4_ESCR_CRU3 },
	  .numasks = 3, .umask = { UM("CLEAR", 0), UM("MOCLEAR", 2), UM("SMCLEAR", 6) } },
	/* Models 3, 4, 6 (Table A-10): CRU_ESCR0/1 with select 04H. */
	{ .name = "instr_completed", .event_select = 0x07, .escr_select = 4, TWO(CRU),
	  .prescott_only = true,
	  .numasks = 2, .umask = { UM("NBOGUS", 0), UM("BOGUS", 1) } },
};

const unsigned nb_event_count = ARRAY_SIZE(nb_event_table);
