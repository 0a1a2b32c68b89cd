// lock_seq: combination lock opened by the byte sequence C4 1F 7A 93.
// Bytes are presented on data with a one-cycle valid strobe. A correct byte
// advances the entry; a wrong byte aborts it (back to idle) and counts a
// failure; a wrong byte in idle is simply ignored. The fourth abort in a row
// (without a successful unlock in between) locks the keypad out for 48 cycles.
// relock closes an open lock and cancels a partial entry (no failure counted).
// Asynchronous active-low reset to idle, no failures, not locked out.
module lock_seq (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       valid,
    input  wire [7:0] data,
    input  wire       relock,
    output wire       unlocked,
    output wire       lockout,
    output wire [1:0] fails
);
    localparam [7:0] CODE0 = 8'hC4, CODE1 = 8'h1F, CODE2 = 8'h7A, CODE3 = 8'h93;
    localparam [2:0] S_IDLE = 3'd0, S_GOT1 = 3'd1, S_GOT2 = 3'd2, S_GOT3 = 3'd3,
                     S_OPEN = 3'd4, S_LOCK = 3'd5;
    localparam [5:0] LOCK_CYCLES = 6'd47;   // lockout lasts LOCK_CYCLES + 1 cycles

    reg [2:0] state;
    reg [1:0] fail_cnt;
    reg [5:0] timer;

    // the byte expected in the current entry state
    reg [7:0] expected;
    always @(*) begin
        case (state)
            S_GOT1:  expected = CODE1;
            S_GOT2:  expected = CODE2;
            S_GOT3:  expected = CODE3;
            default: expected = CODE0;
        endcase
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state    <= S_IDLE;
            fail_cnt <= 2'd0;
            timer    <= 6'd0;
        end else begin
            case (state)
                S_IDLE: begin
                    if (valid && data == CODE0)
                        state <= S_GOT1;
                end
                S_GOT1, S_GOT2, S_GOT3: begin
                    if (relock) begin
                        state <= S_IDLE;                  // entry cancelled
                    end else if (valid) begin
                        if (data == expected) begin
                            if (state == S_GOT3) begin
                                state    <= S_OPEN;       // full code entered
                                fail_cnt <= 2'd0;
                            end else begin
                                state <= state + 3'd1;
                            end
                        end else if (fail_cnt == 2'd3) begin
                            state    <= S_LOCK;           // fourth abort
                            fail_cnt <= 2'd0;
                            timer    <= LOCK_CYCLES;
                        end else begin
                            state    <= S_IDLE;           // abort
                            fail_cnt <= fail_cnt + 2'd1;
                        end
                    end
                end
                S_OPEN: begin
                    if (relock)
                        state <= S_IDLE;
                end
                S_LOCK: begin
                    if (timer == 6'd0)
                        state <= S_IDLE;
                    else
                        timer <= timer - 6'd1;
                end
                default: state <= S_IDLE;
            endcase
        end
    end

    assign unlocked = (state == S_OPEN);
    assign lockout  = (state == S_LOCK);
    assign fails    = fail_cnt;
endmodule
