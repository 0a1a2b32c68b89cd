// 8N1 serial transmitter: start bit, 8 data bits LSB first, stop bit.
module uart_tx_framer #(
    parameter CLKS_PER_BIT = 4
) (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       start,
    input  wire [7:0] data,
    output reg        tx,
    output wire       busy
);
    localparam [1:0] IDLE = 2'd0, START_BIT = 2'd1, DATA_BITS = 2'd2, STOP_BIT = 2'd3;

    reg [1:0] state;
    reg [7:0] shreg;
    reg [2:0] bit_idx;
    reg [7:0] baud_cnt;
    wire      bit_done = (baud_cnt == CLKS_PER_BIT - 1);

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            state <= IDLE; tx <= 1'b1; shreg <= 8'd0; bit_idx <= 3'd0; baud_cnt <= 8'd0;
        end else begin
            baud_cnt <= (state == IDLE || bit_done) ? 8'd0 : baud_cnt + 8'd1;
            case (state)
                IDLE: begin
                    tx <= 1'b1;
                    if (start) begin shreg <= data; tx <= 1'b0; state <= START_BIT; end
                end
                START_BIT:
                    if (bit_done) begin
                        tx <= shreg[0]; shreg <= shreg >> 1; bit_idx <= 3'd0; state <= DATA_BITS;
                    end
                DATA_BITS:
                    if (bit_done) begin
                        if (bit_idx == 3'd7) begin
                            tx <= 1'b1; state <= STOP_BIT;
                        end else begin
                            tx <= shreg[0]; shreg <= shreg >> 1; bit_idx <= bit_idx + 3'd1;
                        end
                    end
                default:
                    if (bit_done) state <= IDLE;
            endcase
        end
    end

    assign busy = (state != IDLE);
endmodule
