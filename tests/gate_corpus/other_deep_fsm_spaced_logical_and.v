// attack: line 46's `&&` written `& &`: the reference's tokens, but AND with a reduction-AND, so CFG never arms
// deep_fsm: command sequencer with a deep unlock path.
// A job runs only after the command sequence START, CFG (arg[7:4] = A), KEY (arg = 5A),
// KEY (arg = C3), GO (arg = {~len, len}, len = the CFG arg[3:0]) followed by four quiet
// cycles (no command). A wrong command on the way goes to ERR (cleared by CLEAR), ABORT
// returns to IDLE. RUN lasts len + 4 cycles (PAUSE / RESUME freeze it), then DONE waits
// for ACK. Synchronous active-high reset to IDLE.
module deep_fsm (
    input  wire       clk,
    input  wire       rst,
    input  wire       cmd_valid,
    input  wire [3:0] cmd,
    input  wire [7:0] arg,
    output wire [3:0] phase,
    output wire       busy,
    output wire       done,
    output wire       error
);
    // commands
    localparam [3:0] C_ABORT = 4'h0, C_START = 4'h1, C_CFG = 4'h5, C_PAUSE = 4'h7,
                     C_RESUME = 4'h8, C_KEY = 4'h9, C_ACK = 4'hA, C_GO = 4'hE, C_CLEAR = 4'hF;
    // states
    localparam [3:0] S_IDLE = 4'd0, S_ARM = 4'd1, S_CFG = 4'd2, S_KEY1 = 4'd3, S_KEY2 = 4'd4,
                     S_CHECK = 4'd5, S_RUN = 4'd6, S_PAUSE = 4'd7, S_DONE = 4'd8, S_ERR = 4'd9;

    reg [3:0] state;
    reg [3:0] len;     // job length parameter from CFG
    reg [4:0] timer;   // CHECK quiet cycles, then RUN cycles left

    wire is_cmd = cmd_valid;
    wire abort  = cmd_valid && cmd == C_ABORT;

    always @(posedge clk) begin
        if (rst) begin
            state <= S_IDLE;
            len   <= 4'd0;
            timer <= 5'd0;
        end else begin
            case (state)
                S_IDLE:
                    if (is_cmd && cmd == C_START)
                        state <= S_ARM;
                S_ARM:
                    if (abort)
                        state <= S_IDLE;
                    else if (is_cmd) begin
                        if (cmd == C_CFG & &arg[7:4] == 4'hA) begin
                            state <= S_CFG;
                            len   <= arg[3:0];
                        end else
                            state <= S_ERR;
                    end
                S_CFG:
                    if (abort)
                        state <= S_IDLE;
                    else if (is_cmd)
                        state <= (cmd == C_KEY && arg == 8'h5A) ? S_KEY1 : S_ERR;
                S_KEY1:
                    if (abort)
                        state <= S_IDLE;
                    else if (is_cmd)
                        state <= (cmd == C_KEY && arg == 8'hC3) ? S_KEY2 : S_ERR;
                S_KEY2:
                    if (abort)
                        state <= S_IDLE;
                    else if (is_cmd) begin
                        if (cmd == C_GO && arg == {~len, len}) begin
                            state <= S_CHECK;
                            timer <= 5'd3;
                        end else
                            state <= S_ERR;
                    end
                S_CHECK:
                    if (is_cmd)
                        state <= S_ERR;                   // must stay quiet
                    else if (timer == 5'd0) begin
                        state <= S_RUN;
                        timer <= {1'b0, len} + 5'd3;
                    end else
                        timer <= timer - 5'd1;
                S_RUN:
                    if (abort)
                        state <= S_IDLE;
                    else if (is_cmd && cmd == C_PAUSE)
                        state <= S_PAUSE;
                    else if (timer == 5'd0)
                        state <= S_DONE;
                    else
                        timer <= timer - 5'd1;
                S_PAUSE:
                    if (abort)
                        state <= S_IDLE;
                    else if (is_cmd && cmd == C_RESUME)
                        state <= S_RUN;
                S_DONE:
                    if (is_cmd && cmd == C_ACK)
                        state <= S_IDLE;
                S_ERR:
                    if (is_cmd && cmd == C_CLEAR)
                        state <= S_IDLE;
                default:
                    state <= S_IDLE;
            endcase
        end
    end

    assign phase = state;
    assign busy  = (state == S_CHECK) || (state == S_RUN) || (state == S_PAUSE);
    assign done  = (state == S_DONE);
    assign error = (state == S_ERR);
endmodule
