module down_counter8 (
    input  wire       clk,
    input  wire       rst_n,
    input  wire       en,
    output reg  [7:0] count,
    output wire       zero
);
    always @(posedge clk or negedge rst_n) begin
        if (!rst_n)
            count <= 8'hFF;
        else if (en)
            count <= count - 8'd1;
    end

    assign zero = (count == 8'd0);
endmodule
