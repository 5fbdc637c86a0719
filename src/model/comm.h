/* Communication ops with their sub-tasks, as a profile records them: the input of the
 * communication analysis (analysis/comm.h; the ops also give the collectives their op types).
 * Kept in the trace as a rank's optional table COMM (tl_rank.comm, model/trace.h) when the load
 * gathers it (tl_load_opts.tables: the commands whose queries read it, and every load that
 * writes the model cache, whose file holds it; a rank mapped from its file borrows the file's
 * tasks where their layout is tl_comm_task's); else read from the sources by the query that
 * needs it (load_comm in tlq_comm), into data of its own. tl summary lets the sub-tasks a rank
 * holds in its own memory go once analysed (tlq_comm_once, comm_data_drop_tasks; the ops
 * stay); a later tlq_comm reads them again from the profile. */
#ifndef TL_COMM_DATA_H
#define TL_COMM_DATA_H
#include <stddef.h>
#include <stdint.h>

#include "util/strpool.h"

/* What a sub-task does, from its HCCL task type. */
typedef enum tl_ctask_kind {
	TL_CTASK_OTHER,    /* Notify_Record, bookkeeping */
	TL_CTASK_TRANSFER, /* moves data: Memcpy, Reduce_Inline, Reduce_TBE, RDMASend */
	TL_CTASK_WAIT,     /* Notify_Wait: waits for a peer's notify */
} tl_ctask_kind;

/* The link a transfer uses, in the names CANN's communication analysis gives them. HCCS, PCIE
 * and SIO are links of the SDMA engine; CANN's SDMA figures are their sum (see comm_bandwidth). */
typedef enum tl_xport {
	TL_XPORT_HCCS,  /* SDMA over HCCS (HCCS_SW) */
	TL_XPORT_PCIE,  /* SDMA over PCIe */
	TL_XPORT_RDMA,  /* RDMA transport (RoCE) */
	TL_XPORT_SIO,   /* SDMA over SIO (between the two dies of a chip) */
	TL_XPORT_SDMA,  /* SDMA over a link named otherwise */
	TL_XPORT_LOCAL, /* on the rank itself: source and destination equal, or no destination */
	TL_XPORT__COUNT
} tl_xport;
extern const char *const tl_xport_name[TL_XPORT__COUNT];

typedef struct tl_comm_task {
	int64_t start, end; /* ns, the TASK row's device times */
	uint64_t size;      /* bytes */
	int64_t src, dst;   /* ranks as the profile numbers them (global on torch_npu), -1: none */
	int64_t plane;      /* planeId: one ordered lane of the algorithm's sub-tasks */
	uint8_t kind;       /* tl_ctask_kind */
	uint8_t xport;      /* tl_xport; meaningful for transfers */
} tl_comm_task;

typedef struct tl_comm_op {
	int64_t id;         /* COMMUNICATION_OP.opId (the comm lane slice's arg) */
	int64_t start, end; /* ns */
	uint32_t name, type,
	    group; /* ids in the data's pool: "hcom_allReduce__865_0_1", "hcom_allReduce_", group */
	size_t task0, ntasks; /* its sub-tasks: tasks[task0 .. task0 + ntasks), by start */
	uint16_t source;      /* index into the rank's sources */
} tl_comm_op;

/* One rank's communication ops. Owns everything it points to, but borrowed tasks. */
typedef struct tl_comm_data {
	tl_strpool *pool;
	tl_comm_op *ops; /* by start */
	size_t nops, opcap;
	tl_comm_task *tasks;
	size_t ntasks, taskcap;
	int borrowed; /* tasks are another's read-only memory (a mapped cache file): not freed here
	               */
	int tasks_dropped; /* the tasks were let go (comm_data_drop_tasks): the ops stay, and who
	                      needs the tasks reads them again (load_comm) */
} tl_comm_data;

void comm_data_init(tl_comm_data *);
void comm_data_free(tl_comm_data *);
/* Lets the tasks go (not borrowed ones), keeping the ops: tasks_dropped. */
void comm_data_drop_tasks(tl_comm_data *);
/* Sorts the ops by start and each op's tasks by start (after a loader added ops whose tasks
 * came in any order: tasks of op i are those with op index i in `owner`, one per task). */
void comm_data_finish(tl_comm_data *, const size_t *owner);

/* The names of collectives, as every library writes them (the readers type an op by its name;
 * analysis/collectives.h matches them across ranks). */
/* The op type of an op name: the name without trailing "_<digits>" parts
 * ("hcom_allReduce__865_0_1" -> "hcom_allReduce_"), as COMMUNICATION_OP.opType names it. */
void coll_op_type(const char *name, char *out, size_t len);
/* The collective an op, kernel or call name says, by the names every library gives it:
 * "allreduce", "allgather", "reduce_scatter", "broadcast", "all_to_all", "send", "recv",
 * "sendrecv" (a batch of both), "barrier", "reduce", "gather", "scatter"; "" when it says none
 * ("ncclDevKernel_Generic", NCCL 2.19's one kernel for all). Reads NCCL kernels
 * ("ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL"), RCCL's, torch's
 * calls and "Collective name" args ("nccl:all_reduce", "_allgather_base", "all_to_allv",
 * "c10d::allreduce_"), HCCL ops and kernels ("hcom_allReduce__865_0_1", "HcclAllreduce",
 * "hcom_receive_", "hcom_alltoallv_"). */
void coll_type_norm(const char *name, char *out, size_t len);
/* The same as a string of static storage. */
const char *coll_type_str(const char *name);

#endif
