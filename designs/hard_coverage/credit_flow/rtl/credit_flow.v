// credit_flow: sender side of a credit-based link, with a 3-bit credit counter.
// The sender starts with 7 credits (the receiver's buffer slots). Each cycle with
// req = 1 and at least one credit it sends the flit (tx_valid, tx_data, registered)
// and spends a credit; with no credit the request stalls. The receiver returns
// cr_ret credits (0-7) each cycle; they add to the count in the same cycle as a
// send spends one. A return that would raise the count above 7 is a protocol
// error: the count saturates at 7 and the sticky cr_err is set.
// stall_cnt counts consecutive stalled cycles (saturating at 15) and returns to 0
// on any cycle that is not a stall; max_stall keeps the longest stall seen.
// sent counts flits (wrapping at 256). Asynchronous active-low reset: 7 credits,
// nothing sent, no stall, no error.
module credit_flow (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       req,
    input  wire [7:0] data,
    input  wire [2:0] cr_ret,
    output reg        tx_valid,
    output reg  [7:0] tx_data,
    output reg  [2:0] credits,
    output reg  [3:0] stall_cnt,
    output reg  [3:0] max_stall,
    output reg  [7:0] sent,
    output reg        cr_err,
    output wire       stalled
);
    localparam [2:0] MAX_CREDITS = 3'd7;

    wire       send  = req && (credits != 3'd0);
    wire       stall = req && (credits == 3'd0);
    // credits after this cycle's send and return, before saturation (0-14)
    wire [3:0] total = {1'b0, credits} - {3'd0, send} + {1'b0, cr_ret};

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            tx_valid  <= 1'b0;
            tx_data   <= 8'd0;
            credits   <= MAX_CREDITS;
            stall_cnt <= 4'd0;
            max_stall <= 4'd0;
            sent      <= 8'd0;
            cr_err    <= 1'b0;
        end else begin
            tx_valid <= send;
            if (send) begin
                tx_data <= data;
                sent    <= sent + 8'd1;
            end
            if (total > {1'b0, MAX_CREDITS}) begin
                credits <= MAX_CREDITS;       // over-return: keep the maximum, flag it
                cr_err  <= 1'b1;
            end else begin
                credits <= total[2:0];
            end
            if (stall) begin
                if (stall_cnt != 4'd15)
                    stall_cnt <= stall_cnt + 4'd1;
                if (stall_cnt >= max_stall && stall_cnt != 4'd15)
                    max_stall <= stall_cnt + 4'd1;
            end else begin
                stall_cnt <= 4'd0;
            end
        end
    end

    assign stalled = (stall_cnt != 4'd0);
endmodule
