/* A trace_view.json whose launch flows go wrong in every way the flow readers must survive: one
 * good HostToDevice and async_npu pair, a flow with only its end, one with only its start, one
 * ending where no slice is, one with an unreadable time, one without an id, an id too long to
 * join exactly, two starts for one id. Written by fuzz_seeds as a seed and by test_links as a
 * fixture (which checks what is linked). */
#ifndef TL_FLOWS_BAD_H
#define TL_FLOWS_BAD_H

#define FLOWS_BAD_JSON                                                                             \
	"[\n"                                                                                      \
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1, \"args\": {\"name\": "            \
	"\"Python\"}},\n"                                                                          \
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 2, \"args\": {\"name\": "            \
	"\"CANN\"}},\n"                                                                            \
	"{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 3, \"args\": {\"name\": \"Ascend "   \
	"Hardware\"}},\n"                                                                          \
	"{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 3, \"tid\": 2, \"args\": {\"name\": " \
	"\"Stream 2\"}},\n"                                                                        \
	"{\"ph\": \"X\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": \"100.000\", "    \
	"\"dur\": 50, \"cat\": \"cpu_op\"},\n"                                                     \
	"{\"ph\": \"X\", \"name\": \"Node@launch\", \"pid\": 2, \"tid\": 5, \"ts\": \"110.000\", " \
	"\"dur\": 5},\n"                                                                           \
	"{\"ph\": \"X\", \"name\": \"MatMul\", \"pid\": 3, \"tid\": 2, \"ts\": \"200.000\", "      \
	"\"dur\": 10, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"                                  \
	"{\"ph\": \"X\", \"name\": \"MatMul\", \"pid\": 3, \"tid\": 2, \"ts\": \"300.000\", "      \
	"\"dur\": 10, \"args\": {\"Task Type\": \"AI_CORE\"}},\n"                                  \
	"{\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"1\", \"pid\": 2, \"tid\": 5, "       \
	"\"ts\": \"110.000\"},\n"                                                                  \
	"{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"HostToDevice\", \"id\": \"1\", \"pid\": 3, "    \
	"\"tid\": 2, \"ts\": \"200.000\"},\n"                                                      \
	"{\"ph\": \"s\", \"bp\": \"e\", \"cat\": \"async_npu\", \"id\": 7, \"pid\": 1, \"tid\": "  \
	"1, \"ts\": \"100.000\"},\n"                                                               \
	"{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"async_npu\", \"id\": 7, \"pid\": 3, \"tid\": "  \
	"2, \"ts\": \"200.000\"},\n"                                                               \
	"{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"HostToDevice\", \"id\": \"2\", \"pid\": 3, "    \
	"\"tid\": 2, \"ts\": \"300.000\"},\n"                                                      \
	"{\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"3\", \"pid\": 2, \"tid\": 5, "       \
	"\"ts\": \"112.000\"},\n"                                                                  \
	"{\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"4\", \"pid\": 2, \"tid\": 5, "       \
	"\"ts\": \"111.000\"},\n"                                                                  \
	"{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"HostToDevice\", \"id\": \"4\", \"pid\": 3, "    \
	"\"tid\": 2, \"ts\": \"999.000\"},\n"                                                      \
	"{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"HostToDevice\", \"id\": \"5\", \"pid\": 3, "    \
	"\"tid\": 2, \"ts\": \"nan\"},\n"                                                          \
	"{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"HostToDevice\", \"pid\": 3, \"tid\": 2, "       \
	"\"ts\": \"300.000\"},\n"                                                                  \
	"{\"ph\": \"s\", \"cat\": \"ac2g\", \"id\": "                                              \
	"\"123456789012345678901234567890123456789012345678901234567890\", \"pid\": 2, \"tid\": "  \
	"5, \"ts\": \"113.000\"},\n"                                                               \
	"{\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"6\", \"pid\": 2, \"tid\": 5, "       \
	"\"ts\": \"114.000\"},\n"                                                                  \
	"{\"ph\": \"s\", \"cat\": \"HostToDevice\", \"id\": \"6\", \"pid\": 1, \"tid\": 1, "       \
	"\"ts\": \"120.000\"}\n"                                                                   \
	"]\n"

#endif
