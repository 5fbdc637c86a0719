/* analysis/collectives: the collective each library's spelling names (coll_type_norm), written
 * out by hand from NCCL's kernel names, torch's "Collective name" values and record_function
 * ranges, RCCL's and HCCL's op and kernel names; and coll_match over entries that carry a type:
 * one kernel name for every call (ncclDevKernel_Generic) is matched call by call per type, and
 * send / recv stay out of the collectives. */
#include "config.h"
#include "analysis/collectives.h"
#include "../test.h"

#include <string.h>

static void
test_names(void)
{
	static const struct {
		const char *name, *type;
	} v[] = {
	    /* NCCL kernels, before 2.19 and the per-function ones */
	    {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
	     "allreduce"},
	    {"ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
	     "sendrecv"},
	    {"ncclKernel_AllGather_RING_LL_Sum_int8_t", "allgather"},
	    {"ncclKernel_ReduceScatter_RING_LL_Sum_bf16", "reduce_scatter"},
	    {"ncclKernel_Broadcast_RING_LL_Sum_int8_t", "broadcast"},
	    {"ncclKernel_Reduce_RING_LL_Sum_float", "reduce"},
	    {"ncclDevKernel_AllReduce_Sum_f32_RING_LL", "allreduce"},
	    /* NCCL 2.19+: one kernel for all, no type in the name */
	    {"ncclDevKernel_Generic", ""},
	    {"ncclDevKernel_Generic_4", ""},
	    /* torch: "Collective name" and record_function ranges */
	    {"allreduce", "allreduce"},
	    {"_allgather_base", "allgather"},
	    {"allgather_into_tensor_coalesced", "allgather"},
	    {"_reduce_scatter_base", "reduce_scatter"},
	    {"reduce_scatter_tensor_coalesced", "reduce_scatter"},
	    {"all_to_all", "all_to_all"},
	    {"all_to_allv", "all_to_all"},
	    {"alltoall_base", "all_to_all"},
	    {"broadcast", "broadcast"},
	    {"barrier", "barrier"},
	    {"send", "send"},
	    {"recv", "recv"},
	    {"gather", "gather"},
	    {"scatter", "scatter"},
	    {"nccl:all_reduce", "allreduce"},
	    {"nccl:_all_gather_base", "allgather"},
	    {"nccl:all_to_all", "all_to_all"},
	    {"nccl:recv 0<-1", "recv"},
	    {"c10d::allreduce_", "allreduce"},
	    {"gloo:all_reduce", "allreduce"},
	    {"record_param_comms", ""},
	    /* HCCL */
	    {"hcom_allReduce__865_0_1", "allreduce"},
	    {"hcom_allGather__069_0_1", "allgather"},
	    {"hcom_reduceScatter__12_3_1", "reduce_scatter"},
	    {"hcom_broadcast__1_0_1", "broadcast"},
	    {"hcom_send__843_7_1", "send"},
	    {"hcom_receive__816_0_1", "recv"},
	    {"hcom_alltoallv__9_0_1", "all_to_all"},
	    {"hcom_allReduce_", "allreduce"},
	    {"HcclAllreduce", "allreduce"},
	    {"HcclBatchSendRecv", "sendrecv"},
	    {"HcclAlltoAllV", "all_to_all"},
	    /* not a collective */
	    {"ampere_sgemm_128x64_nn", ""},
	};
	for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
		char t[32];
		coll_type_norm(v[i].name, t, sizeof t);
		CHECK(strcmp(t, v[i].type) == 0, "%s -> '%s' (got '%s')", v[i].name, v[i].type, t);
	}
	CHECK(coll_type_p2p("send") == 1 && coll_type_p2p("recv") == 2 &&
	          coll_type_p2p("sendrecv") == 3 && coll_type_p2p("all_to_all") == 0 &&
	          coll_type_p2p("") == -1,
	      "point-to-point by type: send, recv, a batch of both; all_to_all is a collective");
}

/* Two ranks, each calling allreduce, allgather, allreduce, send as ncclDevKernel_Generic on one
 * group: three instances of two ranks (allreduce #0 and #1, allgather #0), the send left out. */
static void
test_match(void)
{
	static const char *const seq[] = {"allreduce", "allgather", "allreduce", "send"};
	tl_coll_entry e[8];
	size_t n = 0;
	for (int r = 0; r < 2; r++)
		for (int k = 0; k < 4; k++)
			e[n++] =
			    (tl_coll_entry){.rank = r,
			                    .ri = (size_t)r,
			                    .group = "process group 0",
			                    .name = "ncclDevKernel_Generic",
			                    .type = seq[k],
			                    .step = 1,
			                    .start = 1000 * k + 10 * r + (k == 2 ? 100 * r : 0),
			                    .end = 1000 * k + 500};
	tl_coll *c;
	size_t nc = coll_match(e, n, &c);
	CHECK_EQ_I64((int64_t)nc, 3, "three instances");
	int ar = 0, ag = 0;
	for (size_t i = 0; i < nc; i++) {
		CHECK(c[i].n == 2, "instance %zu has both ranks", i);
		ar += strcmp(c[i].op_type, "allreduce") == 0;
		ag += strcmp(c[i].op_type, "allgather") == 0;
		CHECK(!c[i].named && strcmp(c[i].name, "ncclDevKernel_Generic") == 0,
		      "instance %zu keeps the kernel name and says it is not its type", i);
	}
	CHECK(ar == 2 && ag == 1, "two allreduce, one allgather (got %d, %d)", ar, ag);
	/* the second allreduce: rank 1 arrives 110 ns after rank 0 */
	CHECK(nc == 3 && c[2].skew == 110 && c[2].last_rank == 1,
	      "the second allreduce's skew 110 ns, rank 1 last (got %lld, %d)",
	      nc == 3 ? (long long)c[2].skew : -1LL, nc == 3 ? c[2].last_rank : -1);
	coll_free(c, nc);
}

int
main(void)
{
	test_names();
	test_match();
	return test_done();
}
