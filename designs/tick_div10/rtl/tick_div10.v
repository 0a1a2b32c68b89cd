// tick_div10: a one-cycle tick every 10 enabled clock cycles, as a first draft is often
// written: the cycle counter is a 32-bit register, far wider than the 0..9 it counts.
// Asynchronous active-low reset. While en = 1 the counter advances and tick is 1 in the
// cycle the counter holds 9; while en = 0 the counter holds and tick is 0.
module tick_div10 (
    input  wire clk,
    input  wire rst_n,
    input  wire en,
    output wire tick
);
    reg [31:0] count;

    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            count <= 32'd0;
        else if (en) begin
            if (count == 32'd9)
                count <= 32'd0;
            else
                count <= count + 32'd1;
        end
    end

    assign tick = en && (count == 32'd9);
endmodule
