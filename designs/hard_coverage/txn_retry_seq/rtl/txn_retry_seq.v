// txn_retry_seq: bus-transaction sequencer with grant timeout, bounded retries with
// exponential backoff, and a saturating count of consecutive successful transactions.
// A start in IDLE latches the burst length (len + 1 beats) and requests the bus (ARB).
// In ARB a grant goes to ADDR; sixteen cycles without one abort (grant timeout). ADDR
// lasts one cycle. In DATA the response rsp is taken every cycle: WAIT stays, OKAY
// completes a beat (the last one goes to DONE), RETRY goes to BACKOFF unless three
// retries were already spent (then ABORT), ERROR aborts. BACKOFF waits 2, 4 or 8 cycles
// (by the retries spent), counts the retry and requests the bus again. DONE adds one to
// ok_streak (saturating at 15); ABORT clears it. Synchronous active-high reset.
module txn_retry_seq (
    input  wire       clk,
    input  wire       rst,
    input  wire       start,
    input  wire [1:0] len,
    input  wire       gnt,
    input  wire [1:0] rsp,
    output wire       bus_req,
    output reg  [2:0] state,
    output reg  [1:0] beat,
    output reg  [1:0] len_q,
    output reg  [1:0] retry_cnt,
    output reg  [3:0] gnt_wait,
    output reg  [3:0] ok_streak,
    output reg  [1:0] abort_why,
    output wire       done,
    output wire       aborted
);
    localparam [2:0] IDLE = 3'd0, ARB = 3'd1, ADDR = 3'd2, DATA = 3'd3,
                     BACKOFF = 3'd4, DONE = 3'd5, ABORT = 3'd6;
    localparam [1:0] R_WAIT = 2'd0, R_OKAY = 2'd1, R_RETRY = 2'd2, R_ERROR = 2'd3;
    localparam [1:0] W_NONE = 2'd0, W_GRANT = 2'd1, W_RETRIES = 2'd2, W_ERROR = 2'd3;

    reg  [2:0] bo_cnt;
    wire [2:0] bo_last = (retry_cnt == 2'd0) ? 3'd1 : (retry_cnt == 2'd1) ? 3'd3 : 3'd7;

    always @(posedge clk) begin
        if (rst) begin
            state     <= IDLE;
            beat      <= 2'd0;
            len_q     <= 2'd0;
            retry_cnt <= 2'd0;
            gnt_wait  <= 4'd0;
            ok_streak <= 4'd0;
            abort_why <= W_NONE;
            bo_cnt    <= 3'd0;
        end else begin
            case (state)
                IDLE: if (start) begin
                    state     <= ARB;
                    len_q     <= len;
                    retry_cnt <= 2'd0;
                    gnt_wait  <= 4'd0;
                    abort_why <= W_NONE;
                end
                ARB: if (gnt) begin
                    state    <= ADDR;
                    beat     <= 2'd0;
                    gnt_wait <= 4'd0;
                end else if (gnt_wait == 4'd15) begin
                    state     <= ABORT;
                    abort_why <= W_GRANT;
                end else
                    gnt_wait <= gnt_wait + 4'd1;
                ADDR: state <= DATA;
                DATA: case (rsp)
                    R_OKAY: if (beat == len_q)
                        state <= DONE;
                    else
                        beat <= beat + 2'd1;
                    R_RETRY: if (retry_cnt == 2'd3) begin
                        state     <= ABORT;
                        abort_why <= W_RETRIES;
                    end else begin
                        state  <= BACKOFF;
                        bo_cnt <= 3'd0;
                    end
                    R_ERROR: begin
                        state     <= ABORT;
                        abort_why <= W_ERROR;
                    end
                    R_WAIT: ;
                endcase
                BACKOFF: if (bo_cnt == bo_last) begin
                    state     <= ARB;
                    retry_cnt <= retry_cnt + 2'd1;
                end else
                    bo_cnt <= bo_cnt + 3'd1;
                DONE: begin
                    state <= IDLE;
                    if (ok_streak != 4'd15)
                        ok_streak <= ok_streak + 4'd1;
                end
                ABORT: begin
                    state     <= IDLE;
                    ok_streak <= 4'd0;
                end
                default: state <= IDLE;
            endcase
        end
    end

    assign bus_req = (state == ARB);
    assign done    = (state == DONE);
    assign aborted = (state == ABORT);
endmodule
