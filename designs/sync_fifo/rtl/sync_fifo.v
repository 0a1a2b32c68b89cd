// sync_fifo: synchronous FIFO, 8 entries of 8 bits, single clock.
// Asynchronous active-low reset empties the FIFO and clears dout.
// A write is accepted when wr_en = 1 and the FIFO is not full; a read is
// accepted when rd_en = 1 and the FIFO is not empty (full/empty are judged
// before the edge, so writing to a full FIFO is dropped even if a read happens
// in the same cycle). On an accepted read, dout is loaded with the oldest word
// at the clock edge (registered output, one cycle latency) and holds otherwise.
module sync_fifo (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       wr_en,
    input  wire [7:0] din,
    input  wire       rd_en,
    output reg  [7:0] dout,
    output wire       full,
    output wire       empty,
    output reg  [3:0] count
);
    reg [7:0] mem [0:7];
    reg [2:0] wr_ptr, rd_ptr;

    wire do_wr = wr_en & ~full;
    wire do_rd = rd_en & ~empty;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            wr_ptr <= 3'd0;
            rd_ptr <= 3'd0;
            count  <= 4'd0;
            dout   <= 8'd0;
        end else begin
            if (do_wr)
                wr_ptr <= wr_ptr + 3'd1;
            if (do_rd) begin
                rd_ptr <= rd_ptr + 3'd1;
                dout   <= mem[rd_ptr];
            end
            case ({do_wr, do_rd})
                2'b10:   count <= count + 4'd1;
                2'b01:   count <= count - 4'd1;
                default: count <= count;
            endcase
        end
    end

    // storage array has no reset
    always @(posedge clk) begin
        if (do_wr)
            mem[wr_ptr] <= din;
    end

    assign full  = (count == 4'd8);
    assign empty = (count == 4'd0);
endmodule
