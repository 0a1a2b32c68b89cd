module ring_counter4 (
    input  wire       clk,
    input  wire       rst,
    output reg  [3:0] ring
);
    always @(posedge clk or posedge rst) begin
        if (rst)
            ring <= 4'b0001;
        else
            ring <= {ring[2:0], ring[3]};
    end
endmodule
