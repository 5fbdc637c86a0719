/* A profile DB whose cells hold every SQLite type where tl reads numbers: written by fuzz_seeds
 * as a seed and by test_gather as a fixture (the gathered tables equal those read on demand). */
#ifndef TL_CELLS_BAD_H
#define TL_CELLS_BAD_H

/* Cells of every type in columns without a declared type (SQLite keeps what was written): times
 * as TEXT holding exactly a decimal integer (taken, as PYTORCH_API's are), TEXT with spaces, a
 * '+', an exponent or 20 digits, REAL and BLOB times (each not), ids as TEXT, REAL and BLOB
 * (not ids, even '12'), and a TEXT 'x' id that two tables share (no join of the two). */
#define CELLS_BAD_SQL                                                                              \
	"CREATE TABLE META_DATA (name TEXT,value TEXT);"                                           \
	"INSERT INTO META_DATA VALUES ('SCHEMA_VERSION','1.0.0');"                                 \
	"CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"                             \
	"INSERT INTO STRING_IDS VALUES (1,'MatMul'),(2,'launch'),(3,'AI_CORE'),(5,'Add');"         \
	"CREATE TABLE STEP_TIME (id,startNs,endNs);"                                               \
	"INSERT INTO STEP_TIME VALUES (1,'0',300),(2,300,'1000'),(3,' 1000',2000),(4,1.5,2),"      \
	"('x',2000,3000);"                                                                         \
	"CREATE TABLE CANN_API (startNs,endNs,type,globalTid,connectionId,name);"                  \
	"INSERT INTO CANN_API VALUES ('100',110,10000,7,1,2),(' 280',290,10000,7,2,2),"            \
	"(310.5,320,10000,7,3,2),(X'3331',340,10000,7,4,2),(350,360,10000,7,'5',2),"               \
	"('+370',380,10000,7,6,2),(390,400,10000,7,7.0,2),('-0',1,1,7,8,2);"                       \
	"CREATE TABLE TASK (startNs,endNs,deviceId,connectionId,globalTaskId,globalPid,taskType,"  \
	"contextId,streamId,taskId,modelId);"                                                      \
	"INSERT INTO TASK VALUES ('150','160',0,1,10,1,1,4294967295,1,1,0),"                       \
	"('165 ',175,0,2,11,1,1,4294967295,1,2,0),(400,'1e3',0,3,12,1,1,4294967295,1,3,0),"        \
	"(410,420.5,0,4,13,1,1,4294967295,1,4,0),(X'3130',440,0,5,14,1,1,4294967295,1,5,0),"       \
	"('99999999999999999999',460,0,6,15,1,1,4294967295,1,6,0),"                                \
	"(470,480,0,7,'10',1,1,4294967295,1,7,0),(490,500,0,8,'x',1,1,4294967295,1,8,0),"          \
	"(510,520,0,'1',10.0,1,1,4294967295,1,9,0),('-0',530,0,8,16,1,1,4294967295,1,10,0),"       \
	"(540,550,'x',1,10,1,1,4294967295,1,11,0),(560,570,0,1,10,1,'x',4294967295,1.5,12,0);"     \
	"CREATE TABLE COMPUTE_TASK_INFO (name,globalTaskId,opType,taskType,inputShapes);"          \
	"INSERT INTO COMPUTE_TASK_INFO VALUES (1,10,1,3,NULL),(5,11,5,3,NULL),(1,12,'1',3,NULL),"  \
	"(5,13,5,3.0,NULL),(1,14,1,3,X'01'),(5,15,5,3,NULL),(1,'x',1,3,NULL),(5,'16',5,3,NULL),"   \
	"(1,16,1,3,NULL);"

#endif
