// watchdog: watchdog timer with a programmable timeout.
// count advances by one each cycle and kick clears it. When count has reached the
// timeout limit (count >= limit) without a kick, the watchdog bites: bite is set
// and count stops until a kick clears both. warning is high in the 16 cycles before
// the bite (count >= limit - 16, not yet bitten). limit is written with wr_en and
// wr_data; values below 32 are refused (limit kept) and set the sticky cfg_err. A
// write takes effect at once, also while counting (a limit written below count
// makes the watchdog bite on the next edge). Asynchronous active-low reset:
// limit 100, count 0, no bite, no cfg_err.
module watchdog (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       kick,
    input  wire       wr_en,
    input  wire [7:0] wr_data,
    output reg  [7:0] count,
    output reg        bite,
    output wire       warning,
    output reg        cfg_err
);
    localparam [7:0] LIMIT_RESET = 8'd100;
    localparam [7:0] LIMIT_MIN   = 8'd32;
    localparam [7:0] WARN_CYCLES = 8'd16;

    reg [7:0] limit;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            count <= 8'd0;
            bite  <= 1'b0;
        end else if (bite) begin
            if (kick) begin
                bite  <= 1'b0;
                count <= 8'd0;
            end
        end else if (kick) begin
            count <= 8'd0;
        end else if (count >= limit) begin
            bite <= 1'b1;                 // timeout reached: bite, count stops
        end else begin
            count <= count + 8'd1;
        end
    end

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            limit   <= LIMIT_RESET;
            cfg_err <= 1'b0;
        end else if (wr_en) begin
            if (wr_data >= LIMIT_MIN)
                limit <= wr_data;
            else
                cfg_err <= 1'b1;          // refused: too short a timeout
        end
    end

    assign warning = !bite && (count >= limit - WARN_CYCLES);
endmodule
