// fifo_corners: synchronous FIFO, 16 entries of 8 bits, with a synchronous flush,
// almost-full / almost-empty flags and sticky overflow / underflow error flags.
// flush (highest priority) empties the FIFO and clears both error flags.
// A read is accepted when rd_en = 1 and the FIFO is not empty; a write is
// accepted when wr_en = 1 and the FIFO is not full, or is full but a read is
// accepted in the same cycle (the read frees the slot). overflow is set by a
// write to a full FIFO without a read; underflow by a read of an empty FIFO
// (even when a write arrives in the same cycle: only the write is accepted).
// dout is registered: loaded with the oldest word on an accepted read.
// Asynchronous active-low reset empties the FIFO, clears the flags and dout.
module fifo_corners (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       flush,
    input  wire       wr_en,
    input  wire [7:0] din,
    input  wire       rd_en,
    output reg  [7:0] dout,
    output wire       full,
    output wire       empty,
    output wire       almost_full,
    output wire       almost_empty,
    output reg  [4:0] count,
    output reg        overflow,
    output reg        underflow
);
    reg [7:0] mem [0:15];
    reg [3:0] wr_ptr, rd_ptr;

    wire do_rd = rd_en & ~empty;
    wire do_wr = wr_en & (~full | do_rd);

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
            wr_ptr    <= 4'd0;
            rd_ptr    <= 4'd0;
            count     <= 5'd0;
            dout      <= 8'd0;
            overflow  <= 1'b0;
            underflow <= 1'b0;
        end else if (flush) begin
            wr_ptr    <= 4'd0;
            rd_ptr    <= 4'd0;
            count     <= 5'd0;
            overflow  <= 1'b0;
            underflow <= 1'b0;
        end else begin
            if (do_wr)
                wr_ptr <= wr_ptr + 4'd1;
            if (do_rd) begin
                rd_ptr <= rd_ptr + 4'd1;
                dout   <= mem[rd_ptr];
            end
            case ({do_wr, do_rd})
                2'b10:   count <= count + 5'd1;
                2'b01:   count <= count - 5'd1;
                default: count <= count;
            endcase
            if (wr_en && full && !rd_en)
                overflow <= 1'b1;
            if (rd_en && empty)
                underflow <= 1'b1;
        end
    end

    // storage array has no reset
    always @(posedge clk) begin
        if (do_wr && !flush)
            mem[wr_ptr] <= din;
    end

    assign full         = (count == 5'd16);
    assign empty        = (count == 5'd0);
    assign almost_full  = (count >= 5'd14);
    assign almost_empty = (count <= 5'd2);
endmodule
