// screen: `include built by token pasting (`inc``lude) pulls a host file (/etc/hostname) into the source; with `default_nettype none its first word comes back in the rejection reason
`define INC `inc``lude
`default_nettype none
module accu (
    input  wire       clk,
    input  wire       rst_n,
    input  wire [7:0] data_in,
    input  wire       valid_in,
    output reg        valid_out,
    output reg  [9:0] data_out
);
    wire leak = `INC "/etc/hostname"
    ;
    reg [1:0] count;
    wire ready_add = !valid_out | valid_in;
    wire end_cnt   = ready_add && (count == 2'd3);
    always @(posedge clk or negedge rst_n)
        if (!rst_n) begin
            count <= 2'd0;
            data_out <= 10'd0;
            valid_out <= 1'b0;
        end else begin
            if (ready_add) begin
                count <= end_cnt ? 2'd0 : count + 2'd1;
                data_out <= (count == 2'd0) ? {2'b00, data_in} : data_out + data_in;
            end
            valid_out <= end_cnt;
        end
endmodule
`default_nettype wire
